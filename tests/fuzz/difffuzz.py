#!/usr/bin/python3
# difffuzz.py: a differential fuzzer of libdl's Python layer against PyTorch.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Each call is a small program text (a reproducer) that builds its inputs
# and stores what it computes in `r`. The same text runs under Debian's
# python3-torch (`import torch as T`) and under libdl (`import dl as T`),
# each in a long-lived worker process; a worker that dies or runs past
# --timeout is restarted, and the call it was running is the one recorded.
# The generators (the FAMILIES table at the end) aim at the edges: negative,
# huge, overflowing and wrongly typed sizes, dims and indices out of range,
# NaN and inf, empty, 0-d, expanded, overlapping and non-contiguous tensors,
# wrong dtypes and wrong Python types.
#
# libdl's outcome of each call, against torch's:
#   crashed     its worker died on a signal (a segfault, an abort, g_error)
#   hung        it ran past --timeout
#   g_critical  lines of GLib's `-CRITICAL **` or `-WARNING **` on its
#               stderr (the libdl worker runs without G_DEBUG, so a
#               critical is printed rather than fatal), and the GLib
#               messages PyGObject turned into Python warnings
#   accepted    it returned where torch raised
#   other-class both raised, exceptions of different families (TypeError;
#               IndexError and KeyError; everything else, RuntimeError
#               being PyTorch's answer to most bad values)
#   refused     it raised where torch returned (mostly features libdl does
#               not have)
#   mismatch    both returned tensors of the same shape whose values differ
#               (or numbers that differ); shape/dtype: of different shapes
#               or dtypes (or lists of different lengths)
#
# A crash or hang is printed as a one-line reproducer. --check (the meson
# test `difffuzz`) fails on any crash, hang or g_critical, and when the
# calls accepted where torch raises, less the deliberate permissive cases
# in PERMISSIVE, exceed ACCEPTED_TARGET of the calls.
#
#   tests/fuzz/difffuzz.py --seed 1 --calls 100000 --timeout 20 \
#       --json fuzz.json            (a long run, from the source root, with
#                                    the environment of README.md)
#   tests/fuzz/difffuzz.py --families views,optim --calls 500 -v

import argparse
import json
import math
import os
import random
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# What a call's text starts with, under each library; the reproducer of a
# crash is this and the call on one line.
IMPORTS = {
    'torch': 'import torch as T, math',
    'dl': 'import dl as T, math',
}

# The share of calls that libdl may accept where torch raises, after the
# deliberate cases below.
ACCEPTED_TARGET = 0.002

# Calls that libdl accepts where torch raises, and that are not counted
# against ACCEPTED_TARGET: (kind, regex on the call text or None, regex on
# torch's "Class: message" or None, why). kind 'deliberate' is a choice of
# libdl's; 'bug' a known bug too large to fix with the fuzzer, listed so
# that the seeded run passes until it is fixed. Both still count in the
# table's `accepted` column.
PERMISSIVE = [
    ('deliberate', None, r"not implemented for '(Half|Bool|BFloat16|Long|Int)'",
     "torch 1.13 has no CPU kernel of the op for float16, bool or (for some "
     "activations) integers; libdl computes it (in float32, rounding the "
     "result)"),
    ('deliberate', r'T\.diag\(', r'numel: integer multiplication overflow',
     "a diagonal offset past the matrix's edge gives an empty diagonal, "
     "however far; torch 1.13 overflows computing the size for offsets "
     "near 2**40"),
    ('deliberate', r'nn\.Conv\w*\(\d+, 0,', r'expected weight to be at least 1 at dimension 0',
     "a convolution with no output channels gives an empty output, as a "
     "Linear with out_features=0 does (in both libraries)"),
    ('deliberate', r'\[\]', r"output with shape \[\] doesn't match the broadcast shape",
     "an empty dim list reduces every dim (as torch's sum(x, []) does); "
     "torch 1.13's logsumexp fails on it"),
    ('deliberate', None, r"has no attribute 'scaled_dot_product_attention'",
     "torch 2.0's function, which Debian's torch 1.13 lacks"),
    ('deliberate', None, r"cannot be converted to type (float|double|at::Half|c10::Half) without overflow",
     "a Python float beyond float32's range (1e308 as a fill, clamp or "
     "where value) is cast as IEEE casts and numpy do, to +-inf"),
    ('deliberate', r'None', r"Please look up dimensions by name, got: name = None|"
     r"passed a dimname \(string\) to this op",
     "dim=None means every dim, as later torch releases take it "
     "(torch 1.13's prod and all take None for a dim name)"),
    ('deliberate', r'T\.(any|all)\([^\n]*\[', r"^TypeError: (any|all)\(\) received",
     "any and all over a list of dims, which later torch releases take"),
    ('deliberate', r'\nW = T\n', None,
     "each library loads the file its own save wrote, so the bytes differ: "
     "such a call finds crashes and hangs, and its outcomes are not "
     "compared (the files PyTorch writes are, in the same family)"),
    ('bug', None, r'^TypeError|Invalid name: a valid identifier',
     "wrong Python types taken as numbers where a wrapper still hands an "
     "argument to the GI call, whose marshalling converts any float, bool "
     "or numeric string (PyNumber_Long, PyNumber_Float): the int arguments "
     "the wrappers convert go through _int_arg (tril(1.5), chunk(True) and "
     "topk('1') are torch's TypeError), but dim lists, double arguments "
     "and the optimizers' options are not all checked yet, and a string "
     "dim is a dimension name to torch"),
    ('bug', r'\.detach\(\)', r'modified by an inplace operation',
     "no version counter: an in-place change, through a detached alias, of a "
     "tensor that autograd saved is not detected, and backward uses the "
     "changed values"),
    ('bug', r'arange\(', r'step must be nonzero',
     "arange with an integer dtype does not check that the step, cast to "
     "that dtype, is not zero (arange(0, 0.5, 0.5, dtype=uint8))"),
    ('bug', r"float\('(nan|inf)'\)|1e\+?308|1e39", r"cannot be converted to type int64_t without overflow|"
     r"cannot be converted to type (int|long|uint8_t|int8_t|int16_t|int32|int64|uint8|bool)",
     "a NaN, inf or out-of-range float written into an integer tensor "
     "(masked_fill_, fill_, T.tensor([1e39], dtype=T.int64)) is cast in C, "
     "which is undefined behaviour (-2**63 on x86-64) instead of an error"),
    ('deliberate', r'\(T\.ones\(2, 0, 3\)', r'(Non-empty|Expected|expected) [234]D|'
     r'(with|and) non-zero dimensions|tensor expected for input',
     "pooling, padding and resampling of an input with an empty non-batch "
     "dim give an empty output; torch 1.13 refuses such an input"),
    ('deliberate', r'stride=2\*\*(3[1-9]|[4-9]\d)', r'stride should be greater than zero',
     "libdl's strides are int64; torch 1.13's pooling overflows a stride "
     "past int32 to 0"),
    ('bug', r'T\.nn\.functional\.pad\(', r'Invalid padding size|negative padding|'
     r'exceeds dimension size|Dimension out of range',
     "pad: negative padding that removes more than a dim holds, and circular "
     "padding of a 2-D input, are not refused"),
    ('bug', r'x\.(var|prod)\(\)[^\n]*\n[^\n]*create_graph', r'does not require grad',
     "the gradient of var() or prod() of a 0-d tensor is differentiable in "
     "libdl and a constant (not requiring grad) in torch"),
    ('bug', r'dtype=T\.int', r'isDifferentiableType',
     "sum and prod to an integer dtype of a tensor that requires grad are "
     "not refused"),
    ('bug', r'GroupNorm', r'Expected more than 1 value per channel',
     "GroupNorm does not refuse a group of one value per channel"),
]

# Known libdl bugs not fixed yet: calls matching one of these regexes are
# not generated unless --include-known (what each does at the time of
# writing in brackets). (bug, regex)
KNOWN_BUGS = [
    # found by this fuzzer: the CPU resampling kernel's tables, of the
    # output's length, are g_new'd, which aborts where it cannot allocate
    ('interpolate(T.ones(1, 2, 5), size=2**31, mode=\'linear\') (GLib-ERROR: failed to '
     'allocate 2147483648 bytes, after 25 s, under a 6 GB address-space limit)',
     r'(interpolate|Upsample)\([^\n]*(size|scale_factor)=2\*\*(3[1-9]|[4-9]\d)'),
]

GLIB_MESSAGE = re.compile(r'-(CRITICAL|WARNING) \*\*')


# ---------------------------------------------------------------- workers

def _summarize(T, r, depth=0):
    """What the parent compares of a call's result `r`: a tensor's shape,
    dtype and (up to 256 elements) values; numbers; the summaries of
    sequences' first items; a type name otherwise."""
    if depth > 2:
        return {'kind': 'other', 'type': type(r).__name__}
    if isinstance(r, T.Tensor):
        shape = [int(s) for s in r.shape]
        n = 1
        for s in shape:
            n *= s
        out = {'kind': 'tensor', 'shape': shape, 'dtype': str(r.dtype).split('.')[-1]}
        if n <= 256:
            v = r.detach().reshape(-1).tolist()
            out['values'] = [float(x) if not isinstance(x, complex) else float('nan') for x in v]
        return out
    if isinstance(r, bool):
        return {'kind': 'number', 'value': float(r)}
    if isinstance(r, (int, float)):
        return {'kind': 'number', 'value': float(r) if abs(r) < 1e300 or isinstance(r, float) else 0.0}
    if isinstance(r, (list, tuple)):
        return {'kind': 'seq', 'len': len(r),
                'items': [_summarize(T, x, depth + 1) for x in list(r)[:8]]}
    return {'kind': 'other', 'type': type(r).__name__}


def worker_main(lib, workdir):
    """A worker: reads one JSON request a line on stdin, runs its code in
    @workdir, answers one JSON line on the original stdout. Its fds 1 and 2
    go to @workdir/stderr, which is emptied before each call and read after
    it."""
    proto = os.fdopen(os.dup(1), 'w')
    errfd = os.open(os.path.join(workdir, 'stderr'),
                    os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o600)
    os.dup2(errfd, 1)
    os.dup2(errfd, 2)
    import warnings
    if lib == 'torch':
        import torch as T
        T.set_num_threads(1)
    else:
        import dl as T
    # after the import: the typelib and library paths may be relative
    os.chdir(workdir)
    proto.write('ready\n')
    proto.flush()
    for line in sys.stdin:
        req = json.loads(line)
        os.ftruncate(errfd, 0)
        T.manual_seed(0)
        ns = {'__name__': '__call__'}
        # PyGObject turns the GLib messages of some domains (GLib-GObject's
        # invalid property values, for one) into Python warnings of class
        # gobject.Warning: they are GLib's warnings all the same.
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            try:
                exec(compile(IMPORTS[lib] + '\n' + req['code'], '<call>', 'exec'), ns)
                out = {'status': 'ok', 'result': _summarize(T, ns.get('r'))}
            except BaseException as e:  # noqa: B902 - SystemExit is a result too
                out = {'status': 'raise', 'exc': type(e).__name__,
                       'mro': [c.__name__ for c in type(e).__mro__],
                       'msg': str(e)[:300]}
            del ns
        sys.stdout.flush()
        sys.stderr.flush()
        os.lseek(errfd, 0, os.SEEK_SET)
        out['stderr'] = os.read(errfd, 1 << 16).decode('utf-8', 'replace')
        for w in caught:
            if w.category.__module__ == 'gobject':
                out['stderr'] += '(python warning) GLib-WARNING **: %s\n' % w.message
        proto.write(json.dumps(out) + '\n')
        proto.flush()


def _limit_memory():
    import resource
    # Sizes of 2**31 elements and more then fail to allocate at once
    # rather than filling the machine.
    limit = 6 << 30
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


class Worker:
    def __init__(self, lib, timeout):
        self.lib = lib
        self.timeout = timeout
        self.proc = None
        self.restarts = 0
        # the worker's directory (the files calls write) and its stderr
        self.workdir = tempfile.mkdtemp(prefix='difffuzz-%s-' % lib)
        self.errpath = os.path.join(self.workdir, 'stderr')
        self.start()

    def start(self):
        env = dict(os.environ)
        env['OMP_NUM_THREADS'] = '1'
        env['OPENBLAS_NUM_THREADS'] = '1'
        env['PYTHONDONTWRITEBYTECODE'] = '1'
        # criticals printed, not fatal: they are counted
        env.pop('G_DEBUG', None)
        self.proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), '--worker', self.lib, self.workdir],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env,
            preexec_fn=_limit_memory)
        self.buf = b''
        line = self._readline(120)
        if line != 'ready':
            raise SystemExit('difffuzz: the %s worker did not start: %s'
                             % (self.lib, self._stderr()[-2000:]))

    def _stderr(self):
        try:
            with open(self.errpath, 'rb') as f:
                return f.read(1 << 16).decode('utf-8', 'replace')
        except OSError:
            return ''

    def _readline(self, timeout):
        """A line of the worker's answers, None at a timeout, '' at EOF."""
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while b'\n' not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                return None
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return ''
            self.buf += chunk
        line, self.buf = self.buf.split(b'\n', 1)
        return line.decode()

    def call(self, code):
        try:
            self.proc.stdin.write((json.dumps({'code': code}) + '\n').encode())
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass
        line = self._readline(self.timeout)
        if line:
            return json.loads(line)
        if line is None:
            self.proc.kill()
            self.proc.wait()
            out = {'status': 'hang', 'stderr': self._stderr()}
        else:
            rc = self.proc.wait()
            out = {'status': 'crash', 'rc': rc, 'stderr': self._stderr()}
        self.restarts += 1
        self.start()
        return out

    def close(self):
        if self.proc and self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.workdir, ignore_errors=True)


# ---------------------------------------------------------------- inputs

# Tensors, as expressions: contiguous, 0-d, empty, expanded, strided,
# transposed, with NaN and inf, of each dtype.
TENSORS = [
    'T.arange(12.).reshape(3, 4)',
    '(T.arange(12.).reshape(3, 4) - 5) / 3',
    'T.arange(24.).reshape(2, 3, 4)',
    'T.arange(6.)',
    'T.tensor(2.5)',
    'T.tensor(-3)',
    'T.zeros(0)',
    'T.zeros(0, 3)',
    'T.ones(2, 0, 3)',
    'T.arange(4.).expand(3, 4)',
    'T.tensor(1.5).expand(2, 3)',
    'T.arange(12.).reshape(3, 4).t()',
    'T.arange(24.).reshape(2, 3, 4)[:, ::2]',
    'T.arange(24.).reshape(2, 3, 4).permute(2, 0, 1)',
    'T.arange(10.)[1::3]',
    "T.tensor([float('nan'), float('inf'), -float('inf'), 0., -0., 1e38, -1e-38])",
    "T.tensor([[float('nan'), 1.], [2., float('inf')]])",
    'T.arange(6).reshape(2, 3)',
    'T.arange(-3, 3)',
    'T.arange(6, dtype=T.int32)',
    'T.arange(6, dtype=T.float64).reshape(3, 2)',
    'T.tensor([True, False, True])',
    'T.tensor([[1, 0], [0, 1]], dtype=T.uint8)',
    'T.tensor([1., 2.], dtype=T.float16)',
    'T.arange(12.).reshape(3, 4).requires_grad_()',
    'T.arange(1., 7.).reshape(2, 3).requires_grad_()',
]

FLOAT_TENSORS = [t for t in TENSORS if 'int' not in t and 'True' not in t
                 and 'uint8' not in t and 'T.arange(6)' not in t and '-3, 3)' not in t
                 and 'tensor(-3)' not in t]

MATRICES = [
    'T.arange(1., 10.).reshape(3, 3)',
    'T.eye(3) * 2 + 1',
    'T.tensor([[4., 1.], [1., 3.]])',
    'T.arange(6.).reshape(2, 3)',
    'T.arange(6.).reshape(3, 2).t()',
    'T.zeros(0, 0)',
    'T.zeros(2, 0)',
    'T.arange(8.).reshape(2, 2, 2)',
    "T.tensor([[float('nan'), 1.], [1., 2.]])",
    'T.ones(3, 3)',
    'T.arange(4, dtype=T.float64).reshape(2, 2) + 1',
    'T.arange(4).reshape(2, 2)',
    'T.tensor(3.)',
    'T.arange(3.)',
]

SIZES = [0, 1, 2, 3, -1, -2, -3, 1.5, '3', None, True, 2 ** 31, 2 ** 40, 2 ** 62,
         2 ** 63, 2 ** 64, -(2 ** 63), [2], (2, 3), float('nan'), float('inf')]
DIMS = [0, 1, -1, 2, -2, 3, -3, 4, 5, -5, 2 ** 31, -(2 ** 31), 2 ** 63, -(2 ** 63) - 1,
        1.0, '0', None, [0], (0, 1), (0, 0), True]
INDICES = [0, 1, 2, -1, -3, -4, 3, 4, 5, 100, -100, 2 ** 40, 2 ** 63, -(2 ** 63) - 1,
           1.5, '1', None, Ellipsis, True, slice(None, None, 2), slice(None, None, -1),
           slice(5, 1), slice(-100, 100), slice(None, None, 0), slice(2 ** 63, None)]
SCALARS = [0, 1, -1, 2, 0.5, -0.0, 1e308, -1e308, float('nan'), float('inf'), -float('inf'),
           2 ** 63, 2 ** 64, True, 1j, '1', None, [1, 2]]


def lit(v):
    """Python source of a literal value."""
    if isinstance(v, float):
        if math.isnan(v):
            return "float('nan')"
        if math.isinf(v):
            return "float('inf')" if v > 0 else "-float('inf')"
        return repr(v)
    if isinstance(v, int) and not isinstance(v, bool) and abs(v) >= 2 ** 16:
        for e in (31, 40, 62, 63, 64):
            if v == 2 ** e:
                return '2**%d' % e
            if v == -(2 ** e):
                return '-2**%d' % e
            if v == -(2 ** e) - 1:
                return '-2**%d - 1' % e
        return repr(v)
    if v is Ellipsis:
        return '...'
    if isinstance(v, slice):
        return '%s:%s%s' % ('' if v.start is None else lit(v.start),
                            '' if v.stop is None else lit(v.stop),
                            '' if v.step is None else ':' + lit(v.step))
    if isinstance(v, (list, tuple)):
        inner = ', '.join(lit(x) for x in v)
        return '[%s]' % inner if isinstance(v, list) else '(%s%s)' % (inner, ',' if len(v) == 1 else '')
    return repr(v)


class Gen:
    """The random choices of one call."""

    def __init__(self, rng):
        self.rng = rng

    def pick(self, seq):
        return seq[self.rng.randrange(len(seq))]

    def chance(self, p):
        return self.rng.random() < p

    def t(self):
        return self.pick(TENSORS)

    def ft(self):
        return self.pick(FLOAT_TENSORS)

    def size(self, good=0.5):
        return lit(self.rng.randint(0, 4) if self.chance(good) else self.pick(SIZES))

    def sizes(self, good=0.5):
        n = self.rng.randint(0, 3)
        return ', '.join(self.size(good) for _ in range(n))

    def dim(self, good=0.5):
        return lit(self.rng.randint(-2, 1) if self.chance(good) else self.pick(DIMS))

    def index(self, good=0.4):
        if self.chance(good):
            return lit(self.rng.randint(-2, 1))
        return lit(self.pick(INDICES))

    def scalar(self, good=0.5):
        return lit(self.rng.choice([0, 1, 2, -1, 0.5]) if self.chance(good) else self.pick(SCALARS))

    def dtype(self):
        return 'T.' + self.pick(['float32', 'float64', 'int64', 'int32', 'bool', 'uint8',
                                 'float16', 'int8', 'int16'])


# ---------------------------------------------------------------- families
#
# Each generator returns (case, code); code sets r.

def g_factories(g):
    f = g.pick(['zeros', 'ones', 'empty', 'full', 'rand', 'randn', 'arange', 'linspace',
                'eye', 'tensor', 'zeros_like', 'full_like', 'randint', 'logspace', 'tensor_nested',
                'from_numpy'])
    if f in ('zeros', 'ones', 'empty', 'rand', 'randn'):
        if g.chance(0.3):
            args = '(%s)' % g.sizes() if g.chance(0.5) else '[%s]' % g.sizes()
        else:
            args = g.sizes()
        kw = ', dtype=%s' % g.dtype() if g.chance(0.3) else ''
        code = 'r = T.%s(%s%s)' % (f, args, kw)
        if f in ('empty', 'rand', 'randn'):
            code += '\nr = r.shape'
        return f, code
    if f == 'full':
        return f, 'r = T.full((%s), %s)' % (g.sizes() + ',', g.scalar())
    if f == 'arange':
        n = g.rng.randint(1, 3)
        args = ', '.join(g.scalar(0.6) for _ in range(n))
        if g.chance(0.3):
            args += ', dtype=%s' % g.dtype()
        return f, 'r = T.arange(%s)' % args
    if f in ('linspace', 'logspace'):
        return f, 'r = T.%s(%s, %s, %s)' % (f, g.scalar(0.7), g.scalar(0.7), g.size())
    if f == 'eye':
        return f, 'r = T.eye(%s)' % ', '.join(g.size() for _ in range(g.rng.randint(1, 2)))
    if f == 'tensor':
        v = g.pick(['[]', '[[]]', '[1, 2.5]', '[[1, 2], [3]]', '[1, [2]]', "['a']", '[None]',
                    '[True, 2]', '2**63', '[2**64]', '-2**63 - 1', "[float('nan')]", '[1j]',
                    '((1, 2), (3, 4))', '[[[]]]', '3', 'None', '{}', '[1e39]', '[T.tensor(1.)]'])
        kw = ', dtype=%s' % g.dtype() if g.chance(0.4) else ''
        return f, 'r = T.tensor(%s%s)' % (v, kw)
    if f == 'from_numpy':
        return f, ('import numpy\na = numpy.arange(6.%s)%s\na.flags.writeable = %s\nx = T.from_numpy(a)\n'
                   'r = x.%s' % (g.pick(['', ', dtype=numpy.float32', ', dtype=numpy.int16', ', dtype=numpy.uint16']),
                                 g.pick(['', '[::2]', '.reshape(2, 3).T', '[::-1]']), g.chance(0.5),
                                 g.pick(['add_(1)', 'zero_()', 'sum()', 'clone()', 'mul_(2)'])))
    if f == 'tensor_nested':
        d = g.rng.randint(1, 40)
        return f, 'r = T.tensor(%s1%s)' % ('[' * d, ']' * d)
    if f == 'zeros_like':
        kw = ', dtype=%s' % g.dtype() if g.chance(0.5) else ''
        return f, 'r = T.zeros_like(%s%s)' % (g.t(), kw)
    if f == 'full_like':
        return f, 'r = T.full_like(%s, %s)' % (g.t(), g.scalar())
    if f == 'randint':
        return f, 'r = T.randint(%s, %s, (%s,)).shape' % (g.scalar(0.7), g.scalar(0.7), g.size())
    raise AssertionError(f)


def g_attributes(g):
    a = g.pick(['shape', 'size', 'stride', 'numel', 'dim', 'dtype', 'element_size',
                'is_contiguous', 'item', 'tolist', 'repr', 'len', 'storage_offset',
                'T', 'bool', 'int', 'float', 'nbytes', 'iter', 'data_ptr_eq', 'numpy', 'repr_huge'])
    x = g.t()
    if a == 'size':
        arg = g.dim() if g.chance(0.7) else ''
        return a, 'r = %s.size(%s)' % (x, arg)
    if a == 'stride':
        arg = g.dim() if g.chance(0.7) else ''
        return a, 'r = %s.stride(%s)' % (x, arg)
    if a in ('numel', 'dim', 'element_size', 'is_contiguous', 'storage_offset', 'item', 'tolist'):
        return a, 'r = %s.%s()' % (x, a)
    if a == 'shape':
        return a, 'r = list(%s.shape)' % x
    if a == 'dtype':
        return a, 'r = str(%s.dtype).split(".")[-1]' % x
    if a == 'repr':
        return a, 'r = len(repr(%s)) > 0' % x
    if a == 'len':
        return a, 'r = len(%s)' % x
    if a == 'T':
        return a, 'r = %s.T' % x
    if a in ('bool', 'int', 'float'):
        return a, 'r = %s(%s)' % (a, x)
    if a == 'nbytes':
        return a, 'r = %s.element_size() * %s.numel()' % (x, x)
    if a == 'iter':
        return a, 'r = [v for v in %s]' % x
    if a == 'numpy':
        return a, 'import numpy\nr = list(numpy.asarray(%s).shape)' % g.pick(
            [x, 'T.zeros(2**40, 0)', 'T.zeros(0, 2**62)', 'T.ones(1).expand(0, 2**40)'])
    if a == 'repr_huge':
        return a, 'r = len(repr(%s)) > 0' % g.pick(
            ['T.ones(1).expand(2**40)', 'T.zeros(2**40, 0)', 'T.ones(3).expand(2**33, 3)', 'T.ones(2).expand(0, 2**40, 2)'])
    if a == 'data_ptr_eq':
        return a, 'x = %s\nr = x.data_ptr() == x.view(-1).data_ptr() if x.is_contiguous() else True' % x
    raise AssertionError(a)


def g_views(g):
    v = g.pick(['view', 'reshape', 'expand', 'permute', 'transpose', 'squeeze', 'unsqueeze',
                'flatten', 'narrow', 'select', 'diagonal', 't',
                'expand_as', 'repeat', 'flip', 'unflatten', 'split', 'chunk', 'unbind',
                'view_dtype', 'contiguous_write', 'roll', 'tril'])
    x = g.t()
    if v in ('view', 'reshape', 'repeat'):
        return v, 'r = %s.%s(%s)' % (x, v, g.sizes())
    if v == 'expand':
        return v, 'r = %s.expand(%s)' % (x, g.sizes(0.6))
    if v == 'permute':
        return v, 'r = %s.permute(%s)' % (x, ', '.join(g.dim(0.7) for _ in range(g.rng.randint(0, 3))))
    if v == 'transpose':
        return v, 'r = %s.%s(%s, %s)' % (x, v, g.dim(), g.dim())
    if v in ('squeeze', 'unsqueeze', 'flatten'):
        args = ', '.join(g.dim() for _ in range(g.rng.randint(0, 2) if v == 'flatten' else g.rng.randint(0, 1)))
        return v, 'r = %s.%s(%s)' % (x, v, args)
    if v == 'narrow':
        return v, 'r = %s.narrow(%s, %s, %s)' % (x, g.dim(), g.index(), g.size())
    if v == 'select':
        return v, 'r = %s.select(%s, %s)' % (x, g.dim(), g.index())
    if v == 'diagonal':
        return v, 'r = %s.diagonal(%s, %s, %s)' % (x, g.index(), g.dim(), g.dim())
    if v == 't':
        return v, 'r = %s.t()' % x
    if v == 'expand_as':
        return v, 'r = %s.expand_as(%s)' % (x, g.t())
    if v == 'flip':
        return v, 'r = %s.flip(%s)' % (x, lit([g.rng.randint(-3, 3) for _ in range(g.rng.randint(0, 3))]))
    if v == 'unflatten':
        return v, 'r = %s.unflatten(%s, (%s))' % (x, g.dim(), g.sizes() + ',')
    if v in ('split', 'chunk'):
        return v, 'r = list(%s.%s(%s, %s))' % (x, v, g.size(), g.dim())
    if v == 'unbind':
        return v, 'r = list(%s.unbind(%s))' % (x, g.dim())
    if v == 'view_dtype':
        return v, 'r = %s.view(%s)' % (x, g.dtype())
    if v == 'contiguous_write':
        return v, 'x = %s\ny = x.%s\ny.add_(1)\nr = x' % (
            g.pick(['T.arange(12.).reshape(3, 4)', 'T.zeros(2, 3)']),
            g.pick(['t()', 'view(-1)', 'reshape(2, -1)', 'contiguous()', 'transpose(0, 1).contiguous()',
                    'select(1, 0)', 'narrow(0, 1, 1)', 'unsqueeze(0)', 'flatten()', 'T']))
    if v == 'roll':
        return v, 'r = %s.roll(%s, %s)' % (x, g.index(), g.dim())
    if v == 'tril':
        return v, 'r = %s.tril(%s)' % (x, g.index())
    raise AssertionError(v)


def g_joins(g):
    f = g.pick(['cat', 'stack', 'hstack', 'vstack', 'cat_dtypes', 'cat_empty', 'cat_bad'])
    n = g.rng.randint(0, 3)
    ts = ', '.join(g.t() for _ in range(n))
    if f in ('cat', 'stack'):
        seq = '[%s]' % ts if g.chance(0.8) else '(%s%s)' % (ts, ',' if n == 1 else '')
        kw = ', %s' % g.dim() if g.chance(0.7) else ''
        return f, 'r = T.%s(%s%s)' % (f, seq, kw)
    if f in ('hstack', 'vstack'):
        return f, 'r = T.%s([%s])' % (f, ts)
    if f == 'cat_dtypes':
        return f, 'r = T.cat([T.arange(3), T.arange(3.), T.tensor([True])], %s)' % g.dim(0.8)
    if f == 'cat_empty':
        return f, 'r = T.cat([T.zeros(0), %s], %s)' % (g.t(), g.dim(0.8))
    if f == 'cat_bad':
        return f, 'r = T.cat(%s)' % g.pick(['[]', 'None', '[1, 2]', 'T.ones(3)', '[T.ones(2), None]',
                                           "'ab'", '[[T.ones(2)]]', '(T.ones(2), 3)'])
    raise AssertionError(f)


def _index_expr(g):
    n = g.rng.randint(1, 3)
    parts = []
    for _ in range(n):
        k = g.rng.random()
        if k < 0.55:
            parts.append(g.index())
        elif k < 0.7:
            parts.append(g.pick(['T.tensor([0, 2])', 'T.tensor([-1, 5])', 'T.tensor([True, False, True])',
                                 'T.tensor([[0], [1]])', 'T.tensor(1)', 'T.tensor([])', 'T.tensor([1.])',
                                 'T.tensor([0, 1], dtype=T.int32)', 'T.tensor([True])', '[0, 1]',
                                 '[True, False]', '[[0, 1]]', '[]', 'T.tensor([2**40])']))
        elif k < 0.8:
            parts.append('None')
        else:
            parts.append(g.pick(['...', '1:', ':-1', '::2', '::-1', '5:1', ':', '0:0', '-100:100', '1:3:0']))
    if n == 1 and g.chance(0.5):
        return parts[0]
    return ', '.join(parts) + (',' if n == 1 else '')


def g_indexing(g):
    x = g.t()
    k = g.pick(['getitem', 'getitem', 'getitem', 'masked', 'gather', 'index_select', 'take',
                'bool_mask', 'where', 'argwhere'])
    if k == 'getitem':
        return k, 'r = %s[%s]' % (x, _index_expr(g))
    if k == 'masked':
        return k, 'x = %s\nr = x[x > 1]' % x
    if k == 'gather':
        return k, 'r = T.gather(%s, %s, %s)' % (x, g.dim(), g.pick(
            ['T.tensor([[0, 1], [2, 0]])', 'T.tensor([[5]])', 'T.tensor([[-1]])', 'T.tensor([[0.]])',
             'T.zeros(0, 0, dtype=T.int64)', 'T.tensor([0])']))
    if k == 'index_select':
        return k, 'r = %s.index_select(%s, %s)' % (x, g.dim(), g.pick(
            ['T.tensor([0, 1])', 'T.tensor([7])', 'T.tensor([-1])', 'T.tensor([[0]])', 'T.tensor([0.])',
             'T.tensor(0)', 'T.tensor([], dtype=T.int64)']))
    if k == 'take':
        return k, 'r = T.take(%s, T.tensor(%s))' % (x, lit([g.rng.randint(-30, 30) for _ in range(2)]))
    if k == 'bool_mask':
        return k, 'r = %s[T.tensor(%s)]' % (x, lit([g.chance(0.5) for _ in range(g.rng.randint(0, 4))]))
    if k == 'where':
        return k, 'x = %s\nr = T.where(x > 0, x, %s)' % (x, g.pick(['x', '0.', 'T.zeros(1)', 'T.zeros(7)', '-1']))
    if k == 'argwhere':
        return k, 'r = T.argwhere(%s)' % x
    raise AssertionError(k)


def g_index_write(g):
    x = g.pick(TENSORS[:15] + ['T.zeros(3, 4)', 'T.zeros(5)', 'T.zeros(2, 3, dtype=T.int64)'])
    k = g.pick(['setitem', 'setitem', 'setitem_tensor', 'index_put', 'scatter', 'masked_fill',
                'index_add', 'index_fill', 'index_copy', 'setitem_leaf'])
    val = g.pick(['1.', '-1', "float('nan')", 'T.tensor(2.)', 'T.ones(4)', 'T.ones(7)', 'T.ones(2, 1)',
                  "'a'", 'None', '[1., 2.]', '2**70', 'T.tensor([1, 2])', 'T.ones(0)', 'True'])
    if k == 'setitem':
        return k, 'x = %s.clone()\nx[%s] = %s\nr = x' % (x, _index_expr(g), val)
    if k == 'setitem_tensor':
        return k, 'x = %s\nx[%s] = %s\nr = x' % (x, _index_expr(g), val)
    if k == 'setitem_leaf':
        return k, 'x = T.ones(3, requires_grad=True)\nx[%s] = %s\nr = x' % (g.index(0.6), val)
    if k == 'index_put':
        return k, 'x = %s.clone()\nx.index_put_((%s,), %s, accumulate=%s)\nr = x' % (
            x, g.pick(['T.tensor([0, 0])', 'T.tensor([9])', 'T.tensor([-1])', 'T.tensor([True, False])']),
            g.pick(['T.tensor(1.)', 'T.tensor([1., 2.])', 'T.ones(3)', 'T.tensor(1)']), g.chance(0.5))
    if k == 'scatter':
        return k, 'x = %s.clone()\nr = x.scatter_(%s, %s, %s)' % (
            x, g.dim(), g.pick(['T.tensor([[0, 1]])', 'T.tensor([[9]])', 'T.tensor([[-1]])', 'T.tensor([0])',
                                'T.tensor([[0.]])']),
            g.pick(['1.', 'T.ones(1, 2)', 'T.ones(1, 1, dtype=T.float64)', 'T.ones(3)']))
    if k == 'masked_fill':
        return k, 'x = %s.clone()\nr = x.masked_fill_(%s, %s)' % (
            x, g.pick(['x > 1', 'T.tensor(True)', 'T.tensor([True, False])', 'T.ones(3, 4)', 'x != x']),
            g.pick(['0.', "float('nan')", 'T.tensor(1.)', 'T.ones(2)', "'a'"]))
    if k in ('index_add', 'index_fill', 'index_copy'):
        idx = g.pick(['T.tensor([0, 1])', 'T.tensor([9])', 'T.tensor([-1])', 'T.tensor([0.])', 'T.tensor([0, 0])'])
        src = g.pick(['T.ones(2, 4)', 'T.ones(2)', 'T.ones(1, 4)', '1.', 'T.ones(3, 4)'])
        if k == 'index_fill':
            src = g.pick(['1.', "float('nan')", 'T.tensor(2.)', 'T.ones(2)'])
        return k, 'x = %s.clone()\nr = x.%s_(%s, %s, %s)' % (x, k, g.dim(0.7), idx, src)
    raise AssertionError(k)


UNARY = ['abs', 'neg', 'exp', 'log', 'sqrt', 'sin', 'cos', 'tanh', 'sigmoid', 'relu', 'floor',
         'ceil', 'round', 'sign', 'reciprocal', 'rsqrt', 'log1p', 'expm1', 'erf', 'trunc',
         'frac', 'isnan', 'isinf', 'isfinite', 'logical_not', 'bitwise_not', 'square', 'log2',
         'asin', 'atan', 'sinh', 'exp2', 'signbit', 'nan_to_num', 'sgn', 'acos', 'cosh',
         'asinh', 'acosh', 'atanh', 'log10', 'erfc', 'erfinv', 'lgamma', 'digamma', 'deg2rad',
         'rad2deg', 'sinc', 'i0', 'isneginf', 'isposinf', 'isreal', 'positive', 'logit']
BINARY = ['add', 'sub', 'mul', 'div', 'pow', 'maximum', 'minimum', 'fmod', 'remainder',
          'atan2', 'eq', 'lt', 'ge', 'ne', 'logical_and', 'bitwise_and', 'bitwise_xor',
          'floor_divide', 'hypot', 'copysign', 'fmax', 'xlogy']


def g_pointwise(g):
    k = g.pick(['unary', 'unary', 'binary', 'binary', 'operator', 'clamp', 'lerp', 'where_scalar',
                'div_mode', 'addcmul', 'cast', 'softmax'])
    x = g.t()
    if k == 'unary':
        return k, 'r = T.%s(%s)' % (g.pick(UNARY), x)
    if k == 'binary':
        other = g.t() if g.chance(0.6) else g.scalar()
        return k, 'r = T.%s(%s, %s)' % (g.pick(BINARY), x, other)
    if k == 'operator':
        op = g.pick(['+', '-', '*', '/', '//', '%', '**', '&', '|', '^', '<<', '>>', '==', '<', '@'])
        other = g.t() if g.chance(0.6) else g.scalar()
        if g.chance(0.3):
            return k, 'r = %s %s (%s)' % (other, op, x)
        return k, 'r = (%s) %s %s' % (x, op, other)
    if k == 'clamp':
        return k, 'r = T.clamp(%s, %s, %s)' % (x, g.scalar(), g.scalar())
    if k == 'lerp':
        return k, 'r = T.lerp(%s, %s, %s)' % (x, g.t(), g.scalar())
    if k == 'where_scalar':
        return k, 'r = T.where(%s > 0, %s, %s)' % (x, g.scalar(), g.scalar())
    if k == 'div_mode':
        return k, 'r = T.div(%s, %s, rounding_mode=%s)' % (
            x, g.t() if g.chance(0.5) else g.scalar(), g.pick(["'floor'", "'trunc'", 'None', "'bad'", '3']))
    if k == 'addcmul':
        return k, 'r = T.%s(%s, %s, %s, value=%s)' % (g.pick(['addcmul', 'addcdiv']), x, g.t(), g.t(), g.scalar())
    if k == 'cast':
        return k, 'r = %s.to(%s)' % (x, g.dtype() if g.chance(0.8) else g.pick(["'cpu'", 'None', '3', "'float'"]))
    if k == 'softmax':
        return k, 'r = T.%s(%s, %s)' % (g.pick(['softmax', 'log_softmax', 'cumsum', 'cumprod']), x, g.dim())
    raise AssertionError(k)


def g_inplace(g):
    x = g.pick(TENSORS)
    k = g.pick(['unary_', 'binary_', 'binary_', 'fill_', 'zero_', 'clamp_', 'copy_', 'leaf', 'overlap',
                'dtype_promote', 'view_of_leaf', 'iop', 'div_'])
    if k == 'unary_':
        return k, 'x = %s\nr = x.%s_()' % (x, g.pick(['abs', 'neg', 'exp', 'sqrt', 'relu', 'floor', 'sigmoid',
                                                      'tanh', 'log', 'sign', 'reciprocal', 'round']))
    if k == 'binary_':
        op = g.pick(['add_', 'sub_', 'mul_', 'pow_', 'maximum', 'fmod_', 'remainder_', 'clamp_min_'])
        if op == 'maximum':
            op = 'copysign_'
        other = g.t() if g.chance(0.5) else g.scalar()
        return k, 'x = %s\nr = x.%s(%s)' % (x, op, other)
    if k == 'fill_':
        return k, 'x = %s\nr = x.fill_(%s)' % (x, g.scalar() if g.chance(0.7) else g.t())
    if k == 'div_':
        return k, 'x = %s\nr = x.div_(%s%s)' % (x, g.pick(['0', '0.', 'T.zeros(1)', 'T.tensor(0)', '-0.', '2']),
                                              g.pick(['', ", rounding_mode='floor'", ", rounding_mode='trunc'"]))
    if k == 'zero_':
        return k, 'x = %s\nr = x.zero_()' % x
    if k == 'clamp_':
        return k, 'x = %s\nr = x.clamp_(%s, %s)' % (x, g.scalar(), g.scalar())
    if k == 'copy_':
        return k, 'x = %s\nr = x.copy_(%s)' % (x, g.t() if g.chance(0.8) else g.scalar())
    if k == 'leaf':
        return k, 'x = T.ones(3, requires_grad=True)\nr = x.%s' % g.pick(
            ['add_(1)', 'mul_(2)', 'zero_()', 'fill_(1)', 'copy_(T.zeros(3))', 'detach().add_(1)',
             'relu_()'])
    if k == 'overlap':
        return k, 'x = %s\nr = x.%s' % (
            g.pick(['T.zeros(3).expand(2, 3)', 'T.zeros(1).expand(4)', 'T.zeros(2, 1).expand(2, 3).t()']),
            g.pick(['add_(1)', 'copy_(T.arange(6.).reshape(2, 3))', 'fill_(1)', 'mul_(T.ones(1))',
                    'zero_()', 'exp_()']))
    if k == 'dtype_promote':
        return k, 'x = %s\nr = x.add_(%s)' % (g.pick(['T.arange(3)', 'T.tensor([True, False])', 'T.arange(3, dtype=T.int32)',
                                                    'T.zeros(3, dtype=T.uint8)']),
                                               g.pick(['0.5', 'T.ones(3)', 'True', 'T.ones(3, dtype=T.float64)',
                                                       '2**70', '-1']))
    if k == 'view_of_leaf':
        return k, 'x = T.ones(3, requires_grad=True)\ny = x[:2]\nr = y.%s' % g.pick(['add_(1)', 'zero_()'])
    if k == 'iop':
        op = g.pick(['+=', '-=', '*=', '/=', '//=', '%=', '**=', '&=', '|=', '@='])
        return k, 'x = %s\nx %s %s\nr = x' % (x, op, g.t() if g.chance(0.5) else g.scalar())
    raise AssertionError(k)


def g_reductions(g):
    x = g.t()
    f = g.pick(['sum', 'mean', 'prod', 'max', 'min', 'amax', 'argmax', 'std', 'var', 'norm',
                'logsumexp', 'all', 'any', 'median', 'cummax', 'topk', 'sort', 'kthvalue',
                'count_nonzero', 'aminmax', 'nansum', 'bincount', 'searchsorted',
                'unique', 'nonzero'])
    if f in ('sum', 'mean', 'prod', 'amax', 'nansum', 'all', 'any', 'logsumexp', 'count_nonzero'):
        if g.chance(0.2) and f != 'prod':
            dim = lit([g.rng.randint(-3, 3) for _ in range(g.rng.randint(0, 3))])
        else:
            dim = g.dim()
        kw = ', keepdim=%s' % g.pick(['True', 'False', '1', "'yes'"]) if g.chance(0.3) and f != 'count_nonzero' else ''
        if g.chance(0.15):
            return f, 'r = T.%s(%s)' % (f, x)
        if f in ('sum', 'mean', 'prod') and g.chance(0.15):
            kw += ', dtype=%s' % g.dtype()
        return f, 'r = T.%s(%s, %s%s)' % (f, x, dim, kw)
    if f in ('max', 'min', 'argmax', 'median', 'cummax'):
        if g.chance(0.3) and f != 'cummax':
            return f, 'r = T.%s(%s)' % (f, x)
        return f, 'r = T.%s(%s, %s)' % (f, x, g.dim())
    if f in ('std', 'var'):
        kw = ', unbiased=%s' % g.pick(['True', 'False']) if g.chance(0.4) else ''
        return f, 'r = T.%s(%s, %s%s)' % (f, x, g.dim(), kw)
    if f == 'norm':
        return f, 'r = T.norm(%s, p=%s)' % (x, g.pick(['1', '2', "'fro'", 'float("inf")', '0', '-1', "'nuc'", '0.5', "'bad'"]))
    if f in ('topk', 'kthvalue'):
        return f, 'r = T.%s(%s, %s, %s)' % (f, x, g.index(0.6), g.dim())
    if f == 'sort':
        return f, 'r = T.sort(%s, %s, descending=%s)' % (x, g.dim(), g.chance(0.5))
    if f == 'unique':
        return f, 'r = T.unique(%s, sorted=%s, return_counts=%s)' % (
            x, g.pick(['True', 'False', '{}', '[2]', "'a'", 'None']), g.pick(['True', 'False', '{}', '3']))
    if f == 'nonzero':
        return f, 'r = T.nonzero(%s, as_tuple=%s)' % (x, g.pick(['True', 'False', '[2]', '{}', "'a'", 'None', '1']))
    if f == 'aminmax':
        return f, 'r = T.aminmax(%s)' % x
    if f == 'bincount':
        return f, 'r = T.bincount(%s)' % g.pick(['T.tensor([0, 1, 1])', 'T.tensor([-1])', 'T.tensor([])', 'T.tensor([1.])',
                                                'T.tensor([[1]])', 'T.tensor([2**40])'])
    if f == 'searchsorted':
        return f, 'r = T.searchsorted(%s, %s)' % (g.pick(['T.arange(5.)', 'T.zeros(0)', 'T.arange(6.).reshape(2, 3)', 'T.tensor(1.)']), g.t())
    raise AssertionError(f)


def g_linalg(g):
    a = g.pick(MATRICES)
    b = g.pick(MATRICES)
    # the products, contractions and matrix reductions, and torch.linalg's
    # decompositions and solvers
    f = g.pick(['matmul', 'matmul', 'mm', 'bmm', 'mv', 'dot', 'outer', 'vdot', 'inner', 'norm', 'einsum',
                'tensordot', 'addmm', 'trace', 'baddbmm', 'diag', 'triu', 'operator', 'decomposition',
                'decomposition', 'solver'])
    if f == 'decomposition':
        d = g.pick(['inv', 'det', 'slogdet', 'cholesky', 'qr', 'svd', 'svdvals', 'eigh', 'eigvalsh', 'pinv',
                    'matrix_exp', 'lu_factor', 'matrix_rank', 'cond', 'matrix_norm', 'vector_norm'])
        extra = {'qr': g.pick(["", ", 'r'", ", 'complete'", ", 'x'"]),
                 'svd': g.pick(['', ', full_matrices=False']),
                 'eigh': g.pick(['', ", 'U'", ", 'X'"]),
                 'matrix_norm': g.pick(['', ", 'nuc'", ', 2', ', -1', ', 3', ", 'x'"]),
                 'vector_norm': g.pick(['', ', 0', ', 3.5', ", float('inf')", ', dim=5']),
                 'cond': g.pick(['', ', 1', ", 'fro'"])}.get(d, '')
        return d, 'r = T.linalg.%s(%s%s)' % (d, a, extra)
    if f == 'solver':
        d = g.pick(['solve', 'solve_triangular', 'lstsq', 'matrix_power', 'cross'])
        if d == 'solve_triangular':
            return d, 'r = T.linalg.solve_triangular(%s, %s, upper=%s)' % (a, b, g.pick(['True', 'False']))
        if d == 'matrix_power':
            return d, 'r = T.linalg.matrix_power(%s, %s)' % (a, g.pick(['0', '2', '-1', '3']))
        return d, 'r = T.linalg.%s(%s, %s)' % (d, a, b)
    if f in ('matmul', 'mm', 'bmm', 'mv', 'dot', 'outer', 'vdot', 'inner'):
        return f, 'r = T.%s(%s, %s)' % (f, a, b)
    if f == 'operator':
        return f, 'r = (%s) @ (%s)' % (a, b)
    if f == 'norm':
        return f, 'r = T.norm(%s, p=%s, dim=%s)' % (a, g.pick(['None', '2', "'fro'", "'nuc'", '1', '-1', '0', "'x'"]),
                                                 g.pick(['None', '0', '-1', '(0, 1)', '(0, 0)', '5']))
    if f == 'diag':
        return f, 'r = T.diag(%s, %s)' % (a, g.index(0.6))
    if f == 'triu':
        return f, 'r = T.triu(%s, %s)' % (a, g.index(0.6))
    if f == 'einsum':
        return f, 'r = T.einsum(%s, %s, %s)' % (
            g.pick(["'ij,jk->ik'", "'ii->i'", "'ij->'", "'i,i'", "'ij,jk'", "'...,...->...'", "'ab'", "'ij->ji'",
                    "'ij,ij->ij'", "'i->ii'", "'->'", "'ij,kl->ijkl'"]), a, b)
    if f == 'tensordot':
        return f, 'r = T.tensordot(%s, %s, dims=%s)' % (a, b, g.pick(['0', '1', '2', '3', '-1', '([0], [1])', '([5], [0])']))
    if f == 'addmm':
        return f, 'r = T.addmm(%s, %s, %s, beta=%s, alpha=%s)' % (g.pick(MATRICES), a, b, g.scalar(0.7), g.scalar(0.7))
    if f == 'baddbmm':
        return f, 'r = T.baddbmm(%s, %s, %s)' % (g.pick(MATRICES), a, b)
    if f == 'trace':
        return f, 'r = T.trace(%s)' % a
    raise AssertionError(f)


def g_autograd(g):
    k = g.pick(['backward', 'backward_grad', 'grad', 'no_leaf', 'twice', 'detach', 'nonscalar',
                'int_grad', 'retain', 'hook', 'grad_fn_chain', 'create_graph'])
    x = g.pick(['T.arange(1., 7.).reshape(2, 3)', 'T.tensor(2.)', 'T.zeros(0)', 'T.arange(4.)',
                "T.tensor([float('nan'), 1.])", 'T.arange(6, dtype=T.float64)'])
    op = g.pick(['x * x', 'x.exp()', 'x.sum(0)', 'x.sqrt()', 'x.log()', 'x / x', 'x[0]', 'x.t() if x.dim() == 2 else x',
                 'x.relu()', 'x.max()', 'x.norm()', 'x.prod()', 'x.softmax(-1)', 'x.abs()', 'x.clamp(0, 1)', 'x.var()',
                 'x.pow(0.5)', 'x.expand(3, *x.shape)', 'x.cumsum(0)', 'x.reshape(-1)[::2]'])
    head = 'x = %s.requires_grad_()\ny = %s\n' % (x, op)
    if k == 'backward':
        return k, head + 'y.sum().backward()\nr = x.grad'
    if k == 'backward_grad':
        return k, head + 'y.backward(%s)\nr = x.grad' % g.pick(['T.ones_like(y)', 'T.ones(1)', 'T.ones(7)', 'None', '1.',
                                                               'T.ones_like(y, dtype=T.float64)', 'T.tensor(1.)'])
    if k == 'grad':
        return k, head + 'r = T.autograd.grad(y.sum(), %s)' % g.pick(['x', '[x]', '[x, x]', 'y', '[]', 'T.ones(1)', '(x,)'])
    if k == 'no_leaf':
        return k, 'x = %s\ny = x * 2\ny.sum().backward()\nr = x.grad' % x
    if k == 'twice':
        return k, head + 'y.sum().backward()\ny.sum().backward()\nr = x.grad'
    if k == 'detach':
        return k, head + 'z = y.detach()\nz.%s\ny.sum().backward()\nr = x.grad' % g.pick(['add_(1)', 'zero_()', 'mul_(2)'])
    if k == 'nonscalar':
        return k, head + 'y.backward()\nr = x.grad'
    if k == 'int_grad':
        return k, 'x = %s\nr = x.requires_grad_()' % g.pick(['T.arange(3)', 'T.tensor([True])', 'T.arange(3, dtype=T.int32)',
                                                             'T.arange(3.)'])
    if k == 'retain':
        return k, head + 'y.retain_grad()\ny.sum().backward(retain_graph=True)\ny.sum().backward()\nr = y.grad'
    if k == 'hook':
        return k, head + 'x.register_hook(lambda g: %s)\ny.sum().backward()\nr = x.grad' % g.pick(
            ['g * 2', 'None', 'g.sum()', '3', 'T.ones(1)', 'g[:1]'])
    if k == 'grad_fn_chain':
        return k, head + 'r = (y.grad_fn is not None, y.requires_grad, y.is_leaf)'
    if k == 'create_graph':
        return k, head + '(g1,) = T.autograd.grad(y.sum(), x, create_graph=True)\ng1.sum().backward()\nr = x.grad'
    raise AssertionError(k)


def g_nn_layers(g):
    s = g.size
    layer = g.pick([
        'nn.Linear(%s, %s)' % (s(0.8), s(0.8)),
        'nn.Conv2d(%s, %s, %s, stride=%s, padding=%s)' % (s(0.8), s(0.8), s(0.8), s(0.8), s(0.8)),
        'nn.Conv1d(%s, %s, %s)' % (s(0.8), s(0.8), s(0.8)),
        'nn.BatchNorm1d(%s)' % s(0.8),
        'nn.BatchNorm2d(%s)' % s(0.8),
        'nn.LayerNorm(%s)' % g.pick(['3', '4', '(3, 4)', '0', '-1', '[]']),
        'nn.GroupNorm(%s, %s)' % (s(0.8), s(0.8)),
        'nn.Embedding(%s, %s)' % (s(0.8), s(0.8)),
        'nn.MaxPool2d(%s)' % s(0.8),
        'nn.AvgPool2d(%s, stride=%s)' % (s(0.8), s(0.8)),
        'nn.Dropout(%s)' % g.pick(['0.5', '0', '1', '-0.1', '1.5', "'a'"]),
        'nn.LSTM(%s, %s)' % (s(0.8), s(0.8)),
        'nn.GRU(%s, %s, batch_first=True)' % (s(0.8), s(0.8)),
        'nn.Flatten(%s)' % g.dim(),
        'nn.Softmax(%s)' % g.dim(),
        'nn.ReLU()',
        'nn.Sequential(nn.Linear(4, 3), nn.ReLU())',
        'nn.MultiheadAttention(%s, %s)' % (s(0.8), s(0.8)),
        'nn.AdaptiveAvgPool2d(%s)' % s(0.8),
        'nn.Upsample(scale_factor=%s)' % g.pick(['2', '0.5', '0', '-1']),
        'nn.%s(%s)' % (g.pick(['LeakyReLU', 'ELU', 'Softplus', 'Hardtanh', 'Dropout', 'Dropout2d']),
                       g.pick(["float('nan')", "float('inf')", '-1.', '1e308', "'a'", 'None'])),
        'nn.%s(3, %s=%s)' % (g.pick(['BatchNorm1d', 'LayerNorm', 'BatchNorm2d']), g.pick(['eps', 'momentum']),
                              g.pick(["float('nan')", "float('inf')", '-1.', '0.'])),
        'nn.%s(%s=%s)' % (g.pick(['HuberLoss', 'SmoothL1Loss', 'CrossEntropyLoss']),
                          g.pick(['delta', 'beta', 'label_smoothing']), g.pick(["float('nan')", "float('inf')", '-1.'])),
    ])
    inp = g.pick(['T.arange(12.).reshape(3, 4)', 'T.ones(2, 3, 4, 4)', 'T.ones(1, 3, 5)', 'T.ones(4)',
                  'T.arange(4).reshape(2, 2)', 'T.tensor([[5, -1]])', 'T.ones(0, 4)', 'T.ones(2, 3)',
                  'T.ones(3, 2, 3)', 'T.tensor(1.)', "T.tensor([[float('nan'), 1., 2., 3.]])"])
    case = layer.split('(')[0]
    if g.chance(0.2):
        return case, 'm = T.%s\nr = sum(p.numel() for p in m.parameters())' % layer
    if g.chance(0.2):
        return case, 'm = T.%s\nm.eval()\nwith T.no_grad():\n    r = m(%s)\nr = r[0] if isinstance(r, tuple) else r\nr = r.shape' % (layer, inp)
    return case, 'm = T.%s\nr = m(%s)\nr = r[0] if isinstance(r, tuple) else r\nr = r.shape' % (layer, inp)


def g_nn_functional(g):
    x = g.pick(FLOAT_TENSORS + ['T.ones(2, 3, 4, 4)', 'T.ones(1, 2, 5)', 'T.ones(2, 3, 4)'])
    f = g.pick(['relu', 'gelu', 'softmax', 'log_softmax', 'dropout', 'linear', 'conv2d', 'max_pool2d',
                'avg_pool2d', 'pad', 'interpolate', 'layer_norm', 'normalize', 'one_hot', 'embedding',
                'leaky_relu', 'hardtanh', 'elu', 'softplus', 'unfold', 'batch_norm', 'adaptive_avg_pool2d',
                'scaled_dot_product_attention'])
    F = 'T.nn.functional.'
    if f in ('relu', 'gelu', 'elu', 'softplus'):
        return f, 'r = %s%s(%s)' % (F, f, x)
    if f in ('softmax', 'log_softmax'):
        return f, 'r = %s%s(%s, %s)' % (F, f, x, g.dim())
    if f == 'dropout':
        return f, 'r = %sdropout(%s, p=%s, training=%s).shape' % (F, x, g.pick(['0.', '0.5', '1.', '-0.5', '2', "'a'"]), g.chance(0.5))
    if f == 'linear':
        return f, 'r = %slinear(%s, %s, %s)' % (F, x, g.pick(MATRICES), g.pick(['None', 'T.ones(3)', 'T.ones(2)', 'T.tensor(1.)']))
    if f == 'conv2d':
        w = g.pick(['T.ones(2, 3, 2, 2)', 'T.ones(1, 1, 1, 1)', 'T.ones(2, 3, 9, 9)', 'T.ones(3)', 'T.ones(2, 3, 0, 2)'])
        return f, 'r = %sconv2d(%s, %s, stride=%s, padding=%s, dilation=%s, groups=%s)' % (
            F, x, w, g.size(0.8), g.size(0.8), g.size(0.8), g.pick(['1', '3', '0', '-1', '2']))
    if f in ('max_pool2d', 'avg_pool2d'):
        return f, 'r = %s%s(%s, %s, stride=%s, padding=%s)' % (F, f, x, g.size(0.7), g.size(0.7), g.size(0.7))
    if f == 'adaptive_avg_pool2d':
        return f, 'r = %sadaptive_avg_pool2d(%s, %s)' % (F, x, g.pick(['1', '2', '(2, 3)', '0', '-1', '(None, 2)', '7']))
    if f == 'pad':
        return f, 'r = %spad(%s, %s, mode=%s)' % (F, x, lit([g.rng.randint(-3, 3) for _ in range(g.rng.choice([1, 2, 4, 6]))]),
                                                  g.pick(["'constant'", "'reflect'", "'replicate'", "'circular'", "'bad'"]))
    if f == 'interpolate':
        return f, 'r = %sinterpolate(%s, %s, mode=%s)' % (
            F, x, g.pick(['size=%s' % g.size(0.7), 'scale_factor=%s' % g.pick(['2', '0.5', '0', '-1', "float('nan')"])]),
            g.pick(["'nearest'", "'bilinear'", "'linear'", "'bicubic'", "'bad'"]))
    if f == 'layer_norm':
        return f, 'r = %slayer_norm(%s, %s)' % (F, x, g.pick(['(4,)', '[3, 4]', '(5,)', '()', '(0,)', '(-1,)']))
    if f == 'normalize':
        return f, 'r = %snormalize(%s, p=%s, dim=%s)' % (F, x, g.pick(['2', '1', '0', '-1', "float('inf')"]), g.dim())
    if f == 'one_hot':
        return f, 'r = %sone_hot(%s, %s)' % (F, g.pick(['T.tensor([0, 2])', 'T.tensor([-1])', 'T.tensor([3])', 'T.tensor([0.])',
                                                        'T.zeros(0, dtype=T.int64)', 'T.tensor(1)']),
                                             g.pick(['-1', '3', '0', '2**40', '1.5']))
    if f == 'embedding':
        return f, 'r = %sembedding(%s, T.arange(12.).reshape(4, 3))' % (F, g.pick(['T.tensor([0, 3])', 'T.tensor([4])',
                                                                                    'T.tensor([-1])', 'T.tensor([0.])',
                                                                                    'T.zeros(0, dtype=T.int64)']))
    if f in ('leaky_relu', 'hardtanh'):
        return f, 'r = %s%s(%s, %s)' % (F, f, x, g.scalar())
    if f == 'unfold':
        return f, 'r = %sunfold(%s, %s)' % (F, x, g.size(0.7))
    if f == 'batch_norm':
        return f, 'r = %sbatch_norm(%s, %s, %s, training=%s)' % (
            F, x, g.pick(['T.zeros(3)', 'T.zeros(4)', 'None', 'T.zeros(2)']), g.pick(['T.ones(3)', 'T.ones(4)', 'None']), g.chance(0.5))
    if f == 'scaled_dot_product_attention':
        q = g.pick(['T.ones(1, 2, 3)', 'T.ones(2, 4)', 'T.ones(1, 2, 0)', 'T.ones(3)', 'T.ones(1, 1, 2, 3)'])
        return f, 'r = %sscaled_dot_product_attention(%s, %s, %s)' % (F, q, g.pick(['T.ones(1, 2, 3)', 'T.ones(1, 5, 3)', 'T.ones(2, 4)']),
                                                                    g.pick(['T.ones(1, 2, 3)', 'T.ones(1, 5, 7)', 'T.ones(2, 4)']))
    raise AssertionError(f)


def g_losses(g):
    f = g.pick(['mse_loss', 'l1_loss', 'cross_entropy', 'nll_loss', 'binary_cross_entropy',
                'binary_cross_entropy_with_logits', 'smooth_l1_loss', 'huber_loss', 'kl_div',
                'cross_entropy_smooth', 'module'])
    F = 'T.nn.functional.'
    pred = g.pick(['T.arange(12.).reshape(3, 4) / 12', 'T.zeros(0, 4)', 'T.tensor(0.5)', 'T.ones(3, 4)',
                   "T.tensor([[float('nan'), 0.5]])", 'T.arange(6.).reshape(2, 3, 1)', 'T.arange(3.)'])
    cls = g.pick(['T.tensor([0, 1, 3])', 'T.tensor([4, 0, 0])', 'T.tensor([-1, 0, 0])', 'T.tensor([0, 1])',
                  'T.tensor([0., 1., 2.])', 'T.zeros(0, dtype=T.int64)', 'T.tensor([-100, 0, 1])', 'T.tensor(1)',
                  'T.tensor([2**40, 0, 0])'])
    red = g.pick(["'mean'", "'sum'", "'none'", "'bad'", 'None', '3'])
    if f in ('mse_loss', 'l1_loss', 'smooth_l1_loss', 'huber_loss', 'kl_div', 'binary_cross_entropy',
             'binary_cross_entropy_with_logits'):
        tgt = g.pick(['T.ones(3, 4) / 2', 'T.zeros(4)', 'T.ones(2)', 'T.tensor(2.)', 'T.arange(12).reshape(3, 4)'])
        return f, 'r = %s%s(%s, %s, reduction=%s)' % (F, f, pred, tgt, red)
    if f in ('cross_entropy', 'nll_loss'):
        kw = ''
        if g.chance(0.3):
            kw = ', weight=%s' % g.pick(['T.ones(4)', 'T.ones(3)', 'T.zeros(4)'])
        if g.chance(0.2):
            kw += ', ignore_index=%s' % g.pick(['0', '-100', '4', '2**40'])
        return f, 'r = %s%s(%s, %s, reduction=%s%s)' % (F, f, pred, cls, red, kw)
    if f == 'cross_entropy_smooth':
        return f, 'r = %scross_entropy(%s, %s, label_smoothing=%s)' % (F, pred, cls, g.pick(['0.1', '-0.1', '1.5', '1.', "'a'"]))
    if f == 'module':
        m = g.pick(['CrossEntropyLoss(reduction=%s)' % red, 'MSELoss()', 'NLLLoss(ignore_index=%s)' % g.pick(['1', '-1', '2**63']),
                    'BCELoss()', 'HuberLoss(delta=%s)' % g.pick(['1.', '0', '-1']), 'L1Loss()',
                    'SmoothL1Loss(beta=%s)' % g.pick(['1.', '0', '-1'])])
        return 'Loss', 'r = T.nn.%s(%s, %s)' % (m, pred, g.pick([cls, 'T.ones(3, 4) / 2']))
    raise AssertionError(f)


def g_optim(g):
    opt = g.pick(['SGD', 'Adam', 'AdamW', 'RMSprop', 'Adagrad'])
    kw = g.pick(['lr=%s' % g.pick(['0.1', '-1', '0', "float('nan')", "'a'", 'None', 'T.tensor(0.1)']),
                 'lr=0.1, momentum=%s' % g.pick(['0.9', '-1', '2', "'a'"]) if opt in ('SGD', 'RMSprop') else 'lr=0.1',
                 'lr=0.1, weight_decay=%s' % g.pick(['0.1', '-1', "float('inf')"]),
                 'lr=0.1, betas=%s' % g.pick(['(0.9, 0.999)', '(1.5, 0.9)', '(0.9,)', '(-0.1, 0.9)', '0.9'])
                 if opt in ('Adam', 'AdamW') else 'lr=0.1',
                 'lr=0.1, eps=%s' % g.pick(['1e-8', '-1', '0']) if opt != 'SGD' else 'lr=0.1',
                 'lr=0.1, nesterov=True' if opt == 'SGD' else 'lr=0.1, amsgrad=True' if opt == 'Adam' else 'lr=0.1'])
    params = g.pick(['[p]', '[p, p]', '[]', 'p', '[p, None]', '[None]', '[{"params": [p, None]}]', '[{"params": [p]}]', '[{"params": [p], "lr": -1}]', '[{"lr": 0.1}]',
                     '[T.ones(2)]', '[p.detach()]', '[3]', '(q for q in [p])', '[{"params": [p]}, {"params": [p]}]'])
    k = g.pick(['step', 'step', 'zero_grad', 'scheduler', 'state_dict', 'nograd', 'add_group'])
    head = 'p = T.nn.Parameter(T.arange(4.))\no = T.optim.%s(%s, %s)\n' % (opt, params, kw)
    if k == 'step':
        return opt, head + '(p * p).sum().backward()\no.step()\nr = p.detach()'
    if k == 'nograd':
        return opt, head + 'o.step()\nr = p.detach()'
    if k == 'zero_grad':
        return opt, head + '(p * p).sum().backward()\no.zero_grad(%s)\nr = p.grad' % g.pick(['', 'set_to_none=False', 'set_to_none=True'])
    if k == 'add_group':
        return opt, head + 'o.add_param_group(%s)\nr = len(o.param_groups)' % g.pick(
            ['{"params": [p]}', '{"params": [T.nn.Parameter(T.ones(2))]}', '{}', '3', '{"params": T.nn.Parameter(T.ones(2))}'])
    if k == 'state_dict':
        return opt, head + '(p * p).sum().backward()\no.step()\nsd = o.state_dict()\no.load_state_dict(%s)\nr = p.detach()' % g.pick(
            ['sd', '{}', '{"state": {}, "param_groups": []}', "{'state': sd['state'], 'param_groups': sd['param_groups'] * 2}", 'None'])
    if k == 'scheduler':
        sch = g.pick(['StepLR(o, step_size=%s)' % g.pick(['1', '0', '-1', '2.5']),
                      'ExponentialLR(o, gamma=%s)' % g.pick(['0.5', '-1', '0', "float('nan')"]),
                      'CosineAnnealingLR(o, T_max=%s)' % g.pick(['3', '0', '-1']),
                      'MultiStepLR(o, milestones=%s)' % g.pick(['[1, 2]', '[2, 1]', '[]', '[-1]']),
                      'LambdaLR(o, %s)' % g.pick(['lambda e: 0.5 ** e', '3', "lambda e: 'a'", 'lambda e: 1 / e']),
                      'OneCycleLR(o, max_lr=%s, total_steps=%s)' % (g.pick(['1.', '-1']), g.pick(['3', '0', '-1'])),
                      'ReduceLROnPlateau(o, factor=%s)' % g.pick(['0.5', '1.', '2', '-1'])])
        steps = g.rng.randint(1, 4)
        arg = '1.' if 'Plateau' in sch else ''
        return 'scheduler', head + 's = T.optim.lr_scheduler.%s\nfor _ in range(%d):\n    o.step()\n    s.step(%s)\nr = [gr["lr"] for gr in o.param_groups]' % (sch, steps, arg)
    raise AssertionError(k)


def g_state_dict(g):
    m = g.pick(['T.nn.Linear(3, 2)', 'T.nn.Sequential(T.nn.Linear(3, 2), T.nn.ReLU(), T.nn.Linear(2, 1))',
                'T.nn.BatchNorm1d(3)', 'T.nn.Conv2d(1, 2, 3)', 'T.nn.LSTM(2, 3)'])
    k = g.pick(['keys', 'load_bad', 'load_strict', 'load_shape', 'load_type', 'roundtrip', 'buffers', 'named'])
    # parameters set to known values: the two libraries' generators differ
    head = ('m = %s\nwith T.no_grad():\n    for i, p in enumerate(m.parameters()):\n'
            '        p.copy_(T.arange(p.numel()).reshape(p.shape) / 7 - i)\nsd = m.state_dict()\n' % m)
    if k == 'keys':
        return k, head + 'r = sorted(sd.keys()) == sorted(k for k, _ in m.named_parameters()) or len(sd)'
    if k == 'load_bad':
        return k, head + 'r = m.load_state_dict(%s)' % g.pick(['{}', 'None', '3', "{'x': 1}", '[]', "{'weight': T.ones(2, 3)}"])
    if k == 'load_strict':
        return k, head + "sd2 = dict(sd)\nsd2['extra'] = T.ones(1)\nr = list(m.load_state_dict(sd2, strict=%s).unexpected_keys)" % g.chance(0.5)
    if k == 'load_shape':
        return k, head + "sd2 = {k: T.zeros(*v.shape, 2) if v.dim() else T.zeros(2) for k, v in sd.items()}\nr = m.load_state_dict(sd2)"
    if k == 'load_type':
        return k, head + "sd2 = {k: %s for k, v in sd.items()}\nm.load_state_dict(sd2)\nr = [v.sum() for v in m.state_dict().values()]" % g.pick(
            ['v.double()', 'v.long()', 'v.tolist()', '3', 'v.t()', 'v.expand(2, *v.shape)[0]', 'v.half()'])
    if k == 'roundtrip':
        return k, head + "import io\nb = io.BytesIO()\nT.save(sd, b)\nb.seek(0)\nsd2 = T.load(b)\nr = [(k, v.shape == sd[k].shape) for k, v in sd2.items()]"
    if k == 'buffers':
        return k, head + 'r = [n for n, _ in m.named_buffers()]'
    if k == 'named':
        return k, head + 'r = [n for n, _ in m.named_modules()]'
    raise AssertionError(k)


def g_serialization(g):
    """T.load of corrupt files: a file written by the library itself, or
    by PyTorch (torch imported in the call, under both libraries, so the
    bytes are the same), in the zip or the legacy format, then cut, with a
    byte changed, doubled, reversed or with a name in it changed."""
    obj = g.pick(['{"a": W.arange(3.), "b": W.ones(2, 2)}', 'W.arange(5.)', '[W.ones(1), 3, "x"]',
                  'W.nn.Linear(2, 2).state_dict()', '{"t": W.arange(6.).reshape(2, 3).t(), "n": None}',
                  'W.arange(4, dtype=W.int32)[1:]', '(W.zeros(0), W.tensor(1.5, dtype=W.float64))'])
    # (libdl reads no legacy file: a few of those)
    writer = g.pick(['T', 'T', 'T', 'torch', 'torch', 'torch', 'torch', 'torch_legacy'])
    if writer == 'T':
        write = 'W = T\nT.save(%s, b)' % obj
    elif writer == 'torch':
        write = 'import torch as W\nW.save(%s, b)' % obj
    else:
        write = 'import torch as W\nW.save(%s, b, _use_new_zipfile_serialization=False)' % obj
    mut = g.pick(['data[:i]', 'data[:i] + bytes([%d]) + data[i + 1:]' % g.rng.randint(0, 255),
                  'data[:i] + data[i + 1:]', 'data[:i] + bytes(8) + data[i:]',
                  "b''", "b'PK\\x03\\x04' + bytes(100)", "b'\\x80\\x02' + bytes(50)", 'data * 2',
                  'bytes(reversed(data))', "data.replace(b'FloatStorage', b'FloatStorxge')",
                  "data.replace(b'data.pkl', b'data.pkx')", "data.replace(b'little', b'big\\x00\\x00\\x00')",
                  "data.replace(b'_rebuild_tensor_v2', b'_rebuild_tensor_v3')", 'data'])
    code = ('import io\nb = io.BytesIO()\n%s\ndata = b.getvalue()\ni = int(len(data) * %.3f)\n'
            "open('f.pt', 'wb').write(%s)\nr = T.load('f.pt')\n"
            'r = r if isinstance(r, T.Tensor) else len(r)' % (write, g.rng.random(), mut))
    return 'load_' + writer, code


FAMILIES = {
    'factories': g_factories,
    'attributes': g_attributes,
    'views': g_views,
    'joins': g_joins,
    'indexing': g_indexing,
    'index_write': g_index_write,
    'pointwise': g_pointwise,
    'inplace': g_inplace,
    'reductions': g_reductions,
    'linalg': g_linalg,
    'autograd': g_autograd,
    'nn_layers': g_nn_layers,
    'nn_functional': g_nn_functional,
    'losses': g_losses,
    'optim': g_optim,
    'state_dict': g_state_dict,
    'serialization': g_serialization,
}


# ---------------------------------------------------------------- compare

def exc_family(name, mro):
    if 'TypeError' in mro:
        return 'type'
    if 'IndexError' in mro or 'KeyError' in mro:
        return 'index'
    return 'value'


def _close(a, b):
    if math.isnan(a) and math.isnan(b):
        return True
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= 5e-5 + 1e-3 * abs(b)


def compare(rd, rt):
    """'ok', 'mismatch' or 'meta' for two result summaries."""
    if rd['kind'] != rt['kind']:
        return 'meta'
    if rd['kind'] == 'tensor':
        if rd['shape'] != rt['shape'] or rd['dtype'] != rt['dtype']:
            return 'meta'
        if 'values' in rd and 'values' in rt:
            if not all(_close(a, b) for a, b in zip(rd['values'], rt['values'])):
                return 'mismatch'
        return 'ok'
    if rd['kind'] == 'number':
        return 'ok' if _close(rd['value'], rt['value']) else 'mismatch'
    if rd['kind'] == 'seq':
        if rd['len'] != rt['len']:
            return 'meta'
        worst = 'ok'
        for a, b in zip(rd['items'], rt['items']):
            c = compare(a, b)
            if c == 'meta':
                return c
            if c == 'mismatch':
                worst = c
        return worst
    return 'ok'


def classify(od, ot):
    """libdl's outcome against torch's."""
    if od['status'] in ('crash', 'hang'):
        return od['status']
    if ot['status'] in ('crash', 'hang'):
        return 'torch-' + ot['status']
    if ot['status'] == 'raise':
        if od['status'] == 'ok':
            return 'accepted'
        if exc_family(od['exc'], od['mro']) != exc_family(ot['exc'], ot['mro']):
            return 'other-class'
        return 'same-raise'
    if od['status'] == 'raise':
        return 'refused'
    outcome = compare(od['result'], ot['result'])
    return 'shape/dtype' if outcome == 'meta' else outcome


def reproducer(code):
    return 'python3 -c %s' % json.dumps(IMPORTS['dl'] + '; ' + _one_line(code))


def _one_line(code):
    """The call's text on one line: simple statements joined by '; ', a
    block (for, with) through exec."""
    lines = code.split('\n')
    if any(l.startswith((' ', 'for ', 'with ', 'if ')) for l in lines):
        return 'exec(%r)' % code
    return '; '.join(lines)


def _exit_name(rc):
    if rc < 0:
        try:
            return signal.Signals(-rc).name
        except ValueError:
            pass
    return 'exit status %d' % rc


def permissive(code, torch_error):
    """The kind of the PERMISSIVE entry an accepted call matches, or None."""
    for kind, code_rx, torch_rx, _ in PERMISSIVE:
        if (code_rx is None or re.search(code_rx, code)) and \
                (torch_rx is None or re.search(torch_rx, torch_error)):
            return kind
    return None


COLUMNS = ['calls', 'crashed', 'hung', 'g_critical', 'accepted', 'other-class', 'refused',
           'mismatch', 'shape/dtype']


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--worker', nargs=2, help=argparse.SUPPRESS)
    ap.add_argument('--seed', type=int, default=0)
    ap.add_argument('--calls', type=int, default=1000)
    ap.add_argument('--families', default='', help='comma-separated; all by default')
    ap.add_argument('--timeout', type=float, default=10.0, help='seconds a call may run')
    ap.add_argument('--json', help='write every finding and the table here')
    ap.add_argument('--check', action='store_true',
                    help='exit 1 on a crash, hang or g_critical, or too many accepted calls')
    ap.add_argument('--include-known', action='store_true',
                    help='also generate the calls of KNOWN_BUGS')
    ap.add_argument('-v', '--verbose', action='count', default=0,
                    help='print accepted and other-class calls too (-vv: refused and mismatches)')
    args = ap.parse_args()
    if args.worker:
        worker_main(*args.worker)
        return 0

    names = [f for f in args.families.split(',') if f] or list(FAMILIES)
    for n in names:
        if n not in FAMILIES:
            ap.error('unknown family %s (known: %s)' % (n, ', '.join(FAMILIES)))
    rng = random.Random(args.seed)
    workers = {lib: Worker(lib, args.timeout) for lib in ('dl', 'torch')}
    table = {n: dict.fromkeys(COLUMNS, 0) for n in names}
    findings = []
    accepted_counted = 0
    accepted_kinds = {None: 0, 'deliberate': 0, 'bug': 0}
    start = time.monotonic()
    try:
        for i in range(args.calls):
            fam = names[i % len(names)]
            while True:
                case, code = FAMILIES[fam](Gen(rng))
                if args.include_known or not any(re.search(rx, code) for _, rx in KNOWN_BUGS):
                    break
            if i and i % 10000 == 0:
                print('... %d calls, %.0f s' % (i, time.monotonic() - start), file=sys.stderr, flush=True)
            od = workers['dl'].call(code)
            ot = workers['torch'].call(code)
            outcome = classify(od, ot)
            row = table[fam]
            row['calls'] += 1
            crit = sum(1 for l in od.get('stderr', '').splitlines() if GLIB_MESSAGE.search(l))
            key = {'crash': 'crashed', 'hang': 'hung'}.get(outcome, outcome)
            if key in row:
                row[key] += 1
            row['g_critical'] += crit
            if outcome == 'accepted':
                kind = permissive(code, '%s: %s' % (ot['exc'], ot['msg']))
                accepted_kinds[kind] += 1
                if kind is None:
                    accepted_counted += 1
            finding = {'family': fam, 'case': case, 'code': code, 'outcome': outcome,
                       'g_critical': crit}
            if outcome in ('crash', 'hang') or crit:
                finding['stderr'] = od.get('stderr', '')[-2000:]
                if outcome == 'crash':
                    finding['rc'] = od['rc']
                what = outcome.upper() if outcome in ('crash', 'hang') else ''
                if outcome == 'crash':
                    what += ' (%s)' % _exit_name(od['rc'])
                print('%s%s [%s/%s]: %s' % (what, ' G_CRITICAL' if crit else '', fam, case,
                                            reproducer(code)), flush=True)
                if crit:
                    print('    ' + '\n    '.join(l for l in od['stderr'].splitlines() if GLIB_MESSAGE.search(l))[:500])
            elif (outcome in ('accepted', 'other-class') and args.verbose) or \
                    (outcome in ('refused', 'mismatch', 'shape/dtype') and args.verbose > 1):
                detail = ''
                if outcome == 'other-class':
                    detail = ' (dl %s, torch %s)' % (od['exc'], ot['exc'])
                elif outcome == 'refused':
                    detail = ' (dl %s: %s)' % (od['exc'], od['msg'][:120])
                elif outcome == 'accepted':
                    detail = ' (torch %s: %s)' % (ot['exc'], ot['msg'][:120])
                print('%s [%s/%s]%s: %s' % (outcome, fam, case, detail, _one_line(code)), flush=True)
            if outcome not in ('ok', 'same-raise'):
                if od.get('status') == 'raise':
                    finding['dl'] = '%s: %s' % (od['exc'], od['msg'])
                if ot.get('status') == 'raise':
                    finding['torch'] = '%s: %s' % (ot['exc'], ot['msg'])
                findings.append(finding)
    finally:
        for w in workers.values():
            w.close()
    elapsed = time.monotonic() - start

    totals = dict.fromkeys(COLUMNS, 0)
    w = max(len(n) for n in names + ['family', 'total'])
    print('%-*s %s' % (w, 'family', ' '.join('%11s' % c for c in COLUMNS)))
    for n in names:
        for c in COLUMNS:
            totals[c] += table[n][c]
        print('%-*s %s' % (w, n, ' '.join('%11d' % table[n][c] for c in COLUMNS)))
    print('%-*s %s' % (w, 'total', ' '.join('%11d' % totals[c] for c in COLUMNS)))
    calls = max(totals['calls'], 1)
    share = accepted_counted / calls
    print('%d calls in %.1f s (%.0f/s), seed %d; accepted where torch raises: %d, of which '
          '%d deliberate and %d known bugs (PERMISSIVE), %d counted (%.3f%%, target %.1f%%)'
          % (totals['calls'], elapsed, totals['calls'] / max(elapsed, 1e-9), args.seed,
             totals['accepted'], accepted_kinds['deliberate'], accepted_kinds['bug'],
             accepted_counted, 100 * share, 100 * ACCEPTED_TARGET))
    if args.json:
        with open(args.json, 'w') as f:
            json.dump({'seed': args.seed, 'calls': totals['calls'], 'seconds': elapsed,
                       'table': table, 'totals': totals, 'accepted_counted': accepted_counted,
                       'accepted_deliberate': accepted_kinds['deliberate'],
                       'accepted_known_bugs': accepted_kinds['bug'],
                       'findings': findings}, f, indent=1)
    if args.check:
        bad = totals['crashed'] + totals['hung'] + totals['g_critical']
        if bad or share > ACCEPTED_TARGET:
            print('FAIL: %d crashed, %d hung, %d with g_critical, %.3f%% accepted'
                  % (totals['crashed'], totals['hung'], totals['g_critical'], 100 * share))
            return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
