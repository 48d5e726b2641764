# test_fast_operators.py: the Tensor operators in C (_dl_fast) give what
# the Python operators they replace give: values, dtypes, exception classes,
# NotImplemented for foreign operands, autograd; and the module is in use
# when it was built.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import operator
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

from conftest import Dl, assert_same

import gi.overrides.Dl as DlModule
from gi.repository import Dl as _typelib  # the op list, even in self-check mode

OPS = [operator.add, operator.sub, operator.mul, operator.truediv]

OPERANDS = [
    lambda lib: lib.tensor([[1.5, -2.0, 3.0]]),
    lambda lib: lib.tensor([[1], [2]]),
    lambda lib: lib.tensor([True, False, True]),
    lambda lib: lib.tensor(2.5, dtype=lib.float64),
    lambda lib: 3,
    lambda lib: -2.5,
    lambda lib: 2.0,
    lambda lib: True,
    lambda lib: 2 ** 70,
]


@pytest.mark.skipif(bool(os.environ.get('DL_PYTHON_OPERATORS')),
                    reason='DL_PYTHON_OPERATORS asks for the Python operators')
def test_fast_module_is_in_use():
    built = any(name.startswith('_dl_fast') for p in sys.path
                for name in (os.listdir(os.path.join(p, 'gi', 'overrides'))
                             if os.path.isdir(os.path.join(p, 'gi', 'overrides')) else []))
    assert DlModule._fast_operators == built
    if built:
        assert type(Dl.Tensor.__dict__['__add__']).__name__ == 'method_descriptor'


@pytest.mark.parametrize("op", OPS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("i", range(4))
@pytest.mark.parametrize("j", range(len(OPERANDS)))
def test_same_as_torch(op, i, j):
    a, b = OPERANDS[i](Dl), OPERANDS[j](Dl)
    ta, tb = OPERANDS[i](torch), OPERANDS[j](torch)
    try:
        expected = op(ta, tb)
    except Exception as e:  # noqa: BLE001 - any class: libdl must match it
        with pytest.raises(type(e)):
            op(a, b)
        return
    assert_same(op(a, b), expected)


def test_matmul_and_neg():
    a = Dl.tensor([[1.0, 2.0], [3.0, 4.0]])
    t = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert_same(a @ a, t @ t)
    assert_same(-a, -t)
    assert_same(-Dl.tensor([1, -2]), -torch.tensor([1, -2]))
    with pytest.raises(RuntimeError):
        -Dl.tensor([True])
    with pytest.raises(RuntimeError):
        Dl.ones(2, 3) @ Dl.ones(2, 3)
    with pytest.raises(TypeError):
        a @ 2


def test_errors_keep_their_class_and_message():
    with pytest.raises(RuntimeError, match=r"add: shapes \[3\] and \[4\]"):
        Dl.ones(3) + Dl.ones(4)
    with pytest.raises(TypeError):
        Dl.ones(3) + "x"
    with pytest.raises(TypeError):
        Dl.ones(3) * object()


def test_foreign_operands_reach_their_reflected_operators():
    class Other:
        def __radd__(self, other):
            return "radd"

        def __rmul__(self, other):
            return "rmul"
    assert Dl.ones(2) + Other() == "radd"
    assert Dl.ones(2) * Other() == "rmul"
    assert_same(Dl.ones(2) + np.array([1.0, 2.0], dtype=np.float32),
                torch.ones(2) + torch.tensor([1.0, 2.0]))


def test_parameters_and_autograd():
    w = Dl.nn.Parameter(Dl.tensor([1.0, 2.0]))
    x = Dl.tensor([3.0, 4.0], requires_grad=True)
    y = ((w * x + 1) / 2 - w) @ x
    y.backward()
    tw = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
    tx = torch.tensor([3.0, 4.0], requires_grad=True)
    u = ((tw * tx + 1) / 2 - tw) @ tx
    u.backward()
    assert_same(y, u)
    assert_same(w.grad, tw.grad)
    assert_same(x.grad, tx.grad)


def test_large_tensors_release_the_gil():
    a = Dl.ones(1 << 16)
    assert_same(a + a, torch.full((1 << 16,), 2.0))
    assert_same(a * 3, torch.full((1 << 16,), 3.0))


def _fast_module():
    from gi.overrides import _dl_fast
    return _dl_fast


@pytest.mark.skipif(not DlModule._fast_operators, reason='_dl_fast is not in use')
def test_own_wrappers_are_in_use_and_balanced():
    # results are wrapped and freed by _dl_fast, which takes and gives back
    # one reference on the class per wrapper (PyGObject's own takes two and
    # gives back one)
    assert _fast_module().own_wrappers()
    a = Dl.ones(3)
    before = sys.getrefcount(Dl.Tensor)
    for _ in range(500):
        b = a + a
        c = b.exp()
        d = Dl.Tensor.mul(b, c)  # a GI call: PyGObject makes this wrapper
    del b, c, d
    assert sys.getrefcount(Dl.Tensor) - before < 550


def test_wrappers_keep_pygobject_behaviour():
    import gc
    import threading
    import weakref
    a = Dl.tensor([1.0, 2.0])
    # a Python weak reference, and its callback when the tensor goes
    seen = []
    b = a * 2
    w = weakref.ref(b, lambda r: seen.append(r))
    assert w() is b
    del b
    gc.collect()
    assert w() is None and len(seen) == 1
    # an attribute keeps the wrapper (PyGObject's toggle reference) while
    # libdl holds the tensor
    m = Dl.nn.Linear(2, 2)
    p = m.weight
    p.tag = 'kept'
    del p
    gc.collect()
    assert m.weight.tag == 'kept'
    # a wrapper made again for a tensor libdl holds is a Tensor again, and
    # the same wrapper while it lives
    q = m.bias
    assert m.bias is q
    del q
    gc.collect()
    assert type(m.bias) is Dl.Tensor and m.bias.shape == (2,)
    # an op that gives back its input gives back the same wrapper
    assert a.contiguous() is a
    # results made and dropped on several threads at once
    errors = []

    def work():
        try:
            x = Dl.ones(50)
            for _ in range(2000):
                y = (x + 1).exp().sum()
            assert abs(float(y) - 50 * np.exp(2.0)) < 1e-3
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)
    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_python_operators_still_work_when_asked_for():
    code = ("import gi; gi.require_version('Dl', '1.0')\n"
            "from gi.repository import Dl\n"
            "import gi.overrides.Dl as M\n"
            "assert not M._fast_operators\n"
            "a = Dl.tensor([1.0, 2.0])\n"
            "print(((a + 1) * a - a / 2).tolist(), (-a).tolist())\n")
    env = dict(os.environ, DL_PYTHON_OPERATORS='1')
    out = subprocess.run([sys.executable, '-c', code], env=env, capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == "[1.5, 5.0] [-1.0, -2.0]"


# ---- every C path against the Python method it replaced, and torch ------------

from gi.overrides import _dl_fast  # noqa: E402

import dl._tensor  # noqa: E402

FAST = not os.environ.get('DL_PYTHON_OPERATORS')


class T:
    """An argument that is one of the inputs below, in either library."""

    def __init__(self, key):
        self.key = key


def inputs(lib):
    f = np.array([1.5, -2.0, 0.25, 3.0, -0.5, 2.0, 0.75], dtype=np.float32)
    sq = np.array([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]], dtype=np.float32)
    return {
        'v': lib.from_numpy(f.copy()),
        'w': lib.from_numpy(f[::-1].copy()),
        'p': lib.from_numpy(np.abs(f) + 0.5),
        'm': lib.from_numpy(sq.copy()),
        'mt': lib.from_numpy(sq.copy()).t(),                   # not contiguous
        'c': lib.from_numpy(np.arange(24, dtype=np.float32).reshape(2, 1, 3, 4)),
        'd': lib.from_numpy(sq.astype(np.float64)),
        'i': lib.from_numpy(np.array([3, -1, 4, 1, -5], dtype=np.int64)),
        'j': lib.from_numpy(np.array([2, 7, 1, 8, 2], dtype=np.int64)),
        'u': lib.from_numpy(np.array([3, 1, 4], dtype=np.int32)),
        'b': lib.from_numpy(np.array([True, False, True])),
        's': lib.from_numpy(np.array(2.5, dtype=np.float32)),
        'si': lib.from_numpy(np.array(7, dtype=np.int64)),
        'sb': lib.from_numpy(np.array(True)),
        'big': lib.from_numpy(np.ones(1 << 16, dtype=np.float32)),
        'big2': lib.from_numpy(np.full(1 << 16, 2.0, dtype=np.float32)),
        'e': lib.from_numpy(np.zeros((0, 3), dtype=np.float32)),
        'g': lib.from_numpy(f.copy()).requires_grad_(),
        'col': lib.from_numpy(np.array([[1.0], [2.0]], dtype=np.float32)),
    }


# (input, method or attribute, args, kwargs): calls the C paths handle, the
# calls they leave to Python (keywords they do not take, numpy numbers,
# bools, tensors where numbers go), and calls that fail.
# the unary ops of the op table (libdl/ops/dl-ops-pointwise.def), as the
# library lists them, and the other one-tensor methods the C paths take
UNARY_NAMES = (list(_typelib.pointwise_op_names(_typelib.OpFlags.UNARY))
               + ['logical_not', 'clone', 'detach', 't', 'contiguous', '__neg__', '__abs__'])
BINARY_NAMES = ['__add__', '__sub__', '__mul__', '__truediv__', 'add', 'sub', 'mul', 'div',
                '__eq__', '__ne__', '__lt__', '__le__', '__gt__', '__ge__',
                'eq', 'ne', 'lt', 'le', 'gt', 'ge']
OTHERS = [T('w'), T('s'), T('i'), T('b'), T('big'), 3, -2.5, 2.0, 0, True, 2 ** 70,
          np.float32(1.5), np.int64(2), [1.0] * 7, None, 'x']

CASES = (
    [(k, name, (), {}) for name in UNARY_NAMES for k in ('v', 'mt', 'i', 'b', 's', 'big', 'e')]
    + [(k, 'clone', (), {'memory_format': None}) for k in ('v',)]
    + [(k, name, (o,), {}) for name in BINARY_NAMES for k in ('v', 'i', 'b')
       for o in OTHERS]
    + [('v', 'add', (T('w'),), {'alpha': a}) for a in (1, 1.0, 2, 0.5, True)]
    + [('v', 'sub', (2,), {'alpha': 3})]
    + [('v', 'add', (), {'other': T('w')}), ('v', 'add', (T('w'), 1, 2), {}), ('v', 'add', (), {})]
    + [(k, name, (o,), {}) for name in ('__radd__', '__rmul__', '__rsub__', '__rtruediv__')
       for k in ('v', 'i', 'b') for o in (3, -2.5, 2.0, True, np.float64(2), 2 ** 70)]
    + [(k, name, (o,), {}) for name in ('__matmul__', 'matmul', 'mm', 'bmm', 'maximum', 'minimum')
       for k, o in (('m', T('mt')), ('v', T('w')), ('m', T('m')), ('m', 2), ('v', 2.0),
                    ('i', T('j')), ('v', None))]
    + [(k, name, (o,), {}) for name in ('pow', '__pow__')
       for k in ('v', 'p', 'i', 'b', 's') for o in (2, 3, -1, 0.5, 2.0, T('j'), T('p'), True,
                                                    np.int32(2), None, 2 ** 70)]
    + [('v', 'pow', (), {'exponent': 2})]
    + [(k, name, args, kw) for name in ('sum', 'mean')
       for k in ('v', 'm', 'mt', 'c', 'i', 'b', 's', 'e', 'big')
       for args, kw in (((), {}), ((0,), {}), ((-1,), {'keepdim': True}), ((), {'dim': 1}),
                        ((), {'dim': (0, 1)}), (([0, -1],), {}), ((0,), {'keepdim': 1}),
                        ((True,), {}), ((np.int64(0),), {}), ((5,), {}), ((2 ** 40,), {}),
                        ((), {'dtype': None}), ((), {'dtype': dl.float64}),
                        ((0,), {'dtype': dl.int64}), ((), {'keepdim': True}),
                        ((0,), {'keep_dim': True}), ((0, 1), {}), (((0, 0),), {}))]
    + [(k, name, args, kw) for name in ('amax', 'amin')
       for k in ('v', 'm', 'mt', 'c', 'i', 'b', 's', 'e', 'big')
       for args, kw in (((), {}), ((0,), {}), ((-1,), {'keepdim': True}), ((), {'dim': 1}),
                        ((), {'dim': (0, 1)}), (([0, -1],), {}), ((0,), {'keepdim': 1}),
                        ((np.int64(0),), {}), ((5,), {}), (((),), {}), (((0, 0),), {}),
                        ((0,), {'keep_dim': True}), ((0, 1), {}))]
    + [(k, name, args, kw) for name in ('max', 'min', 'argmax', 'argmin')
       for k in ('v', 'm', 'mt', 'c', 'i', 'b', 's', 'e', 'big')
       for args, kw in (((), {}), ((0,), {}), ((1,), {'keepdim': True}), ((), {'dim': -1}),
                        ((), {'dim': 0, 'keepdim': False}), ((5,), {}), ((None,), {}),
                        ((np.int64(0),), {}), ((0,), {'keepdim': 'yes'}), ((T('m'),), {}))]
    + [(k, name, args, {}) for name in ('view', 'reshape')
       for k in ('v', 'm', 'mt', 'c', 's', 'e')
       for args in ((-1,), (3, 2), ((2, 3),), ([6],), (2, -1), (1, 2, 1, 3), (7,), (), (1.5,),
                    (np.int64(6),), ((2, 3.0),), (2 ** 70,), (-1, -1), ((),))]
    + [(k, 'expand', args, {}) for k in ('v', 'col', 's', 'm')
       for args in ((2, 7), (-1, 7), ((2, 2, 3),), (2, 3), (3,), ([4, -1],), (1.0,), ())]
    + [(k, 'permute', args, {}) for k in ('m', 'mt', 'c', 's')
       for args in ((1, 0), ((1, 0),), ([3, 2, 1, 0],), (0, 1, 3, 2), (0, 0), (1,), (),
                    (1.0, 0.0), (2 ** 40, 0))]
    + [(k, name, args, kw) for name in ('unsqueeze', 'softmax', 'log_softmax', 'squeeze')
       for k in ('v', 'm', 'mt', 'c', 's', 'i', 'e')
       for args, kw in (((0,), {}), ((-1,), {}), ((), {'dim': 1}), ((5,), {}), ((), {}),
                        ((0,), {'dtype': dl.float64}), ((0,), {'dtype': None}), ((1.0,), {}),
                        ((True,), {}), ((None,), {}))]
    + [(k, name, args, kw) for name in ('transpose', 'flatten')
       for k in ('v', 'm', 'mt', 'c', 's')
       for args, kw in (((0, 1), {}), ((1, 0), {}), ((-1, 0), {}), ((1,), {}), ((), {}),
                        ((), {'start_dim': 1}), ((), {'dim0': 0, 'dim1': 1}), ((0, 5), {}),
                        ((0.0, 1), {}), ((0, 1, 2), {}))]
    + [(k, name, (o,), {}) for name in ('add_', 'sub_', 'mul_', 'div_', '__iadd__', '__isub__',
                                          '__imul__', '__itruediv__')
       for k in ('v', 'i', 'b', 'g', 'mt', 'big')
       for o in (T('w'), T('s'), T('i'), 2, 0.5, 0, 0.0, True, 2 ** 70, np.float32(2), 'x',
                 T('m'), T('big2'))]
    + [('v', name, (T('w'),), {'alpha': a}) for name in ('add_', 'sub_') for a in (1, 2.0)]
    + [(k, name, (), {}) for name in ('zero_', 'relu_') for k in ('v', 'i', 'b', 'g', 'mt')]
    + [(k, 'fill_', (o,), {}) for k in ('v', 'i', 'b', 'g')
       for o in (3, -1.5, True, 2 ** 70, np.float32(2), T('s'), T('v'), 'x')]
    + [(k, name, args, kw) for name in ('clamp', 'clamp_') for k in ('v', 'i', 'mt', 'g', 'big')
       for args, kw in (((0.2, 0.7), {}), ((-1,), {}), ((None, 2), {}), ((), {'max': 0.5}),
                        ((T('s'), 1.0), {}), ((0.5, 0.2), {}), ((), {}), ((None, None), {}),
                        ((True, 2), {}), ((2 ** 70,), {}), (('x',), {}), ((0.1, 0.2, 0.3), {}),
                        ((), {'min': 0, 'low': 1}))]
    + [(k, 'copy_', (o,), {}) for k in ('v', 'i', 'mt', 'g', 'big')
       for o in (T('w'), T('i'), T('s'), T('m'), T('big2'), [1.0] * 7, 2.0)]
    + [(k, 'size', args, kw) for k in ('v', 'mt', 's', 'e')
       for args, kw in (((), {}), ((0,), {}), ((-1,), {}), ((), {'dim': 1}), ((3,), {}),
                        ((None,), {}), ((1.0,), {}), ((0, 1), {}))]
    + [(k, name, args, {}) for name in ('dim', 'numel', 'item')
       for k in ('v', 'mt', 's', 'si', 'sb', 'e', 'g') for args in ((), (0,))]
    + [(k, '__getitem__', (idx,), {}) for k in ('v', 'm', 'mt', 'c', 's', 'e')
       for idx in (0, -1, 5, 2 ** 70, slice(1, 3), slice(None, None, 2), slice(-3, None),
                   slice(None, 1), slice(2, 1), slice(None, None, -1), slice(0, 2, 0),
                   slice(0.0, 2), (0, 1), (slice(None), 1), (1, slice(0, 2)), (0, 0, 0, 0),
                   (0, 0, 0, 0, 0), (), None, Ellipsis, (Ellipsis, 0), True, [0, 1],
                   (0, [0, 1]), np.int64(0))]
    + [(k, name, None, None) for name in ('shape', 'ndim', 'dtype', 'device', 'requires_grad',
                                           'grad', 'is_leaf')
       for k in ('v', 'mt', 'i', 'b', 's', 'e', 'g')]
)


def resolve(x, ins):
    if isinstance(x, T):
        return ins[x.key]
    if isinstance(x, tuple):
        return tuple(resolve(y, ins) for y in x)
    if isinstance(x, dict):
        return {k: resolve(v, ins) for k, v in x.items()}
    return x


def for_torch(x):
    if isinstance(x, type(dl.float32)):
        return getattr(torch, x.name)
    if isinstance(x, dict):
        return {k: for_torch(v) for k, v in x.items()}
    if isinstance(x, tuple):
        return tuple(for_torch(y) for y in x)
    return x


def outcome(fn):
    """('ok', result) or ('raise', exception)."""
    try:
        return 'ok', fn()
    except Exception as e:  # noqa: BLE001 - any class: both paths must agree on it
        return 'raise', e


def same_result(a, b):
    """a and b (libdl results, of the two paths) are the same: equal
    tensors of the same dtype, or equal Python values of the same type."""
    if isinstance(a, dl.Tensor) or isinstance(b, dl.Tensor):
        assert type(a) is type(b)
        assert a.dtype == b.dtype and tuple(a.shape) == tuple(b.shape)
        assert a.requires_grad == b.requires_grad
        assert np.array_equal(a.detach().float().numpy(), b.detach().float().numpy(),
                              equal_nan=True)
    elif isinstance(a, tuple):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b):
            same_result(x, y)
    else:
        assert type(a) is type(b) and (a == b or a != a and b != b), (a, b)


def like_torch(a, t):
    if isinstance(t, torch.Tensor):
        assert_same(a, t)
    elif isinstance(t, tuple):
        assert len(a) == len(t)
        for x, y in zip(a, t):
            like_torch(x, y)
    elif isinstance(t, torch.dtype):
        assert a.name == str(t).split('.')[-1]
    elif isinstance(t, torch.device):
        assert str(a) == str(t)
    else:
        assert type(a) is type(t) and a == t


def run_case(key, name, args, kwargs, path):
    """Calls name on input key of a fresh set of inputs: through the C path
    (path 'c'), the Python method it replaced ('py') or torch ('torch').
    Returns the outcome and, for in-place methods, the input after it."""
    lib = torch if path == 'torch' else dl
    ins = inputs(lib)
    x = ins[key]
    a = resolve(args, ins)
    kw = resolve(kwargs, ins)
    if path == 'torch':
        a, kw = for_torch(a), for_torch(kw)
    if args is None:                                           # an attribute
        if path == 'py':
            return outcome(lambda: dl._tensor._PYTHON_METHODS[name].__get__(x)), x
        return outcome(lambda: getattr(x, name)), x
    if path == 'py':
        return outcome(lambda: dl._tensor._PYTHON_METHODS[name](x, *a, **kw)), x
    return outcome(lambda: getattr(x, name)(*a, **kw)), x


@pytest.mark.skipif(not FAST, reason='DL_PYTHON_OPERATORS asks for the Python methods')
def test_every_c_path_is_tested():
    tested = {name for _, name, _, _ in CASES}
    assert set(_dl_fast.names()) == tested
    assert set(dl._tensor._PYTHON_METHODS) == tested


@pytest.mark.skipif(not FAST, reason='DL_PYTHON_OPERATORS asks for the Python methods')
@pytest.mark.parametrize('key,name,args,kwargs', CASES,
                         ids=['%s.%s%s%s' % (k, n, '' if a is None else a, kw or '')
                              for k, n, a, kw in CASES])
def test_c_path_gives_what_python_and_torch_give(key, name, args, kwargs):
    (kind, got), x = run_case(key, name, args, kwargs, 'c')
    (pkind, expected), px = run_case(key, name, args, kwargs, 'py')
    assert kind == pkind, (got, expected)
    if kind == 'raise':
        assert type(got) is type(expected) and str(got) == str(expected)
    else:
        if expected is NotImplemented:
            assert got is NotImplemented
        elif expected is px:
            assert got is x                                    # in place: self
        else:
            same_result(got, expected)
        same_result(x, px)                                     # in place: the same values
    (tkind, t), tx = run_case(key, name, args, kwargs, 'torch')
    if got is NotImplemented or t is NotImplemented:
        return                     # a dunder called directly: the operator decides
    if tkind == 'ok' and kind == 'ok':
        like_torch(got, t)
        if isinstance(tx, torch.Tensor):
            like_torch(x, tx)
    elif tkind == 'raise' and kind == 'raise':
        assert (isinstance(got, type(t)) or isinstance(t, type(got))
                or (type(got).__name__, type(t).__name__) in KNOWN_DIVERGENCES), (got, t)
    # Where only one of them raises, the call is one of the odd ones above
    # that exercise the fallbacks, and the Python layer is more lenient than
    # torch (keepdim=1, lists as operands, the gelu method, ...) or does not
    # take it (exp of a bool tensor): the same on both paths, as asserted.


# Where the Python layer raises another class than torch 1.13 does, on
# both paths alike (edge cases the C paths leave to it): bool dims, ints
# beyond int32 or int64, dim=None for softmax, integer in-place division
# by zero, fill_ with a string, a step <= 0 on a 0-d tensor, lists as
# operands (taken, then failing on their shape), the gelu and silu methods
# (not in torch 1.13), and a mean over an integer tensor (libdl checks
# the dims first).
KNOWN_DIVERGENCES = {
    ('IndexError', 'TypeError'), ('OverflowError', 'IndexError'),
    ('OverflowError', 'RuntimeError'), ('OverflowError', 'TypeError'),
    ('TypeError', 'RuntimeError'), ('ZeroDivisionError', 'RuntimeError'),
    ('ValueError', 'TypeError'), ('IndexError', 'ValueError'), ('Error', 'TypeError'),
    ('Error', 'AttributeError'), ('IndexError', 'RuntimeError'),
}
