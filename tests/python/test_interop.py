# test_interop.py: the Python conventions PyTorch scripts rely on besides
# the ops: __version__ and torch.version, torch.return_types (the named
# tuples of max, sort, topk, ...: names, reprs, pickling), numpy's argument
# names (axis=, keepdims=), Tensor.new_zeros and its kin, and
# inference_mode, each compared with torch 1.13.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import inspect
import operator
import os
import pickle
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

from conftest import Dl, SELF_CHECK, assert_same, pair

libdl_only = pytest.mark.skipif(SELF_CHECK, reason="libdl's own version")

SOURCE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def outcome(fn, *args, **kwargs):
    """('ok', result) or ('raise', exception class, message)."""
    try:
        return ('ok', fn(*args, **kwargs))
    except Exception as e:  # noqa: BLE001: any exception is compared with torch's
        cls = RuntimeError if isinstance(e, RuntimeError) else type(e)
        return ('raise', cls, str(e))


def assert_like_torch(got, expected):
    """Results equal (tensors, tuples of them, numbers), or the same
    exception class."""
    if expected[0] == 'raise':
        assert got[0] == 'raise', 'torch raised %s (%s), libdl returned %r' % expected[1:] + (
            got[1:],)
        assert got[1] is expected[1], (got, expected)
        return
    assert got[0] == 'ok', 'libdl raised %s: %s' % got[1:]
    g, e = got[1], expected[1]
    if isinstance(e, torch.Tensor):
        assert_same(g, e)
    elif isinstance(e, tuple):
        assert type(g).__name__ == type(e).__name__
        assert len(g) == len(e)
        for a, b in zip(g, e):
            if isinstance(b, torch.Tensor):
                assert_same(a, b)
            else:
                assert a == b
    else:
        assert g == e


# ---- __version__ -------------------------------------------------------------

def project_version():
    with open(os.path.join(SOURCE_ROOT, 'meson.build')) as f:
        return re.search(r"version:\s*'([^']+)'", f.read()).group(1)


@libdl_only
def test_version_is_the_projects():
    import dl
    assert Dl.__version__ == dl.__version__ == project_version()
    assert type(Dl.__version__).__name__ == 'TorchVersion'
    assert isinstance(Dl.__version__, str) and str(Dl.__version__) == project_version()
    assert Dl.version.__version__ == project_version()
    assert type(Dl.version.__version__) is str
    # the typelib's, for C, GJS and Vala
    from gi.module import get_introspection_module
    typelib = get_introspection_module('Dl')
    assert typelib.get_version() == typelib.VERSION_S == project_version()
    parts = tuple(int(p) for p in project_version().split('.'))
    assert (typelib.get_major_version(), typelib.get_minor_version(),
            typelib.get_micro_version()) == parts
    assert (typelib.MAJOR_VERSION, typelib.MINOR_VERSION, typelib.MICRO_VERSION) == parts
    # not exported by a star import, as torch's is not
    assert '__version__' not in dl.__all__


def test_version_module():
    assert isinstance(Dl.version.__version__, str)
    assert Dl.version.cuda is None and Dl.version.hip is None
    assert Dl.version.debug is False
    assert isinstance(Dl.version.git_version, str)
    assert Dl.__version__ == Dl.version.__version__
    assert isinstance(Dl.__version__, Dl.torch_version.TorchVersion)


VERSIONS = ['0.1.0', '1.13.0a0', '1.13.1', '2.0.0', 'parrot']
OTHERS = ['0.1', '0.1.0', '1.13', '1.13.0', '1.13.1', '2', (0, 1), (1, 13, 1), [2, 0], (1,),
          'parrot', 'zebra', 'abc']


@pytest.mark.parametrize('version', VERSIONS)
def test_version_compares_as_torch(version):
    from packaging.version import Version
    mine, theirs = Dl.torch_version.TorchVersion(version), torch.torch_version.TorchVersion(version)
    assert mine == theirs and str(mine) == str(theirs) and hash(mine) == hash(version)
    for other in OTHERS + [Version('0.1.0'), Version('1.13.1')]:
        for op in (operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge):
            expected = outcome(op, theirs, other)
            got = outcome(op, mine, other)
            assert got[0] == expected[0], (version, other, op, got, expected)
            if got[0] == 'ok':
                assert got[1] == expected[1], (version, other, op)
            else:
                assert got[1] is expected[1]


# ---- torch.return_types ---------------------------------------------------------

def torch_return_types():
    return {name: cls for name, cls in vars(torch.return_types).items()
            if inspect.isclass(cls) and issubclass(cls, tuple) and not name.startswith('_')}


def test_return_types_module():
    expected = torch_return_types()
    assert Dl.return_types.__name__ in ('dl.return_types', 'torch.return_types')
    for name, cls in expected.items():
        mine = getattr(Dl.return_types, name)
        assert issubclass(mine, tuple)
        assert mine.__name__ == name and mine.__qualname__ == name
        assert mine.__module__ == Dl.return_types.__name__
        assert mine.__match_args__ == cls.__match_args__, name
        assert (mine.n_fields, mine.n_sequence_fields, mine.n_unnamed_fields) == (
            cls.n_fields, cls.n_sequence_fields, cls.n_unnamed_fields)
        assert name in Dl.return_types.__all__


def test_return_type_construction_and_errors():
    mine, theirs = Dl.return_types, torch.return_types
    for name in ('max', 'aminmax', 'linalg_svd', 'linalg_lstsq'):
        n = getattr(theirs, name).n_fields
        for args in [(tuple(range(n)),), (list(range(n)),), (range(n),), ((1,),),
                     (tuple(range(n + 1)),), (1,), (1, 2), ((1,) * n, {}), ((1,) * n, 3)]:
            expected = outcome(getattr(theirs, name), *args)
            got = outcome(getattr(mine, name), *args)
            assert got[0] == expected[0], (name, args, got, expected)
            if got[0] == 'ok':
                assert tuple(got[1]) == tuple(expected[1])
                assert repr(got[1]) == repr(expected[1])
                assert str(got[1]) == str(expected[1])
            else:
                assert got[1:] == expected[1:], (name, args)
    r, t = mine.max((1, 2)), theirs.max((1, 2))
    assert r == t == (1, 2) and r.values == 1 and r.indices == 2
    assert r[1] == 2 and r[-1] == 2 and len(r) == 2 and list(r) == [1, 2]
    assert type(r[:1]) is tuple and type(r + ()) is tuple
    for action in (lambda x: setattr(x, 'values', 3), lambda x: setattr(x, 'other', 3),
                   lambda x: delattr(x, 'values'), lambda x: x.other):
        assert outcome(action, r)[1:] == outcome(action, t)[1:]
    values, indices = r
    assert (values, indices) == (1, 2)


def cases(x):
    """(label, call) of every libdl op that returns a return type: methods
    (the C paths of max and min among them) and functions."""
    lib = Dl if isinstance(x, Dl.Tensor) else torch
    return [
        ('max', lambda: x.max(0)), ('max_kw', lambda: x.max(dim=1, keepdim=True)),
        ('max_fn', lambda: lib.max(x, 1)), ('min', lambda: x.min(1)),
        ('min_fn', lambda: lib.min(x, dim=0, keepdim=True)),
        ('sort', lambda: x.sort()), ('sort_fn', lambda: lib.sort(x, 0, descending=True)),
        ('topk', lambda: x.topk(2)), ('topk_fn', lambda: lib.topk(x, 1, dim=0)),
        ('kthvalue', lambda: x.kthvalue(2, 1)), ('kthvalue_fn', lambda: lib.kthvalue(x, 1, 0)),
        ('median', lambda: x.median(0)), ('median_fn', lambda: lib.median(x, 1, True)),
        ('nanmedian', lambda: x.nanmedian(1)), ('nanmedian_fn', lambda: lib.nanmedian(x, 0)),
        ('cummax', lambda: x.cummax(0)), ('cummax_fn', lambda: lib.cummax(x, 1)),
        ('cummin', lambda: x.cummin(1)), ('cummin_fn', lambda: lib.cummin(x, 0)),
        ('aminmax', lambda: x.aminmax()), ('aminmax_fn', lambda: lib.aminmax(x, dim=1)),
        ('aminmax_keep', lambda: lib.aminmax(x, dim=0, keepdim=True)),
    ]


DATA = np.array([[1.0, 3.0, -2.0], [2.0, 0.0, 5.0], [4.0, -1.0, 2.0]], dtype=np.float32)


@pytest.mark.parametrize('label', [c[0] for c in cases(torch.zeros(1))])
@pytest.mark.parametrize('dtype', ['float32', 'int64'])
def test_ops_return_their_types(label, dtype):
    x, t = pair(DATA, dtype)
    got = dict(cases(x))[label]()
    expected = dict(cases(t))[label]()
    cls = type(expected)
    assert type(got).__name__ == cls.__name__
    assert type(got) is getattr(Dl.return_types, cls.__name__)
    assert type(got).__module__ == Dl.return_types.__name__
    assert repr(got) == repr(expected)
    assert str(got) == str(expected)
    for field in cls.__match_args__:
        assert_same(getattr(got, field), getattr(expected, field))
    again = pickle.loads(pickle.dumps(got))
    assert type(again) is type(got)
    for a, b in zip(again, expected):
        assert_same(a, b)


def test_return_type_repr_of_larger_tensors():
    data = np.linspace(-2, 2, 60, dtype=np.float32).reshape(3, 4, 5)
    x, t = pair(data)
    assert repr(x.max(0)) == repr(t.max(0))
    assert repr(x.sort(2, descending=True)) == repr(t.sort(2, descending=True))
    assert repr(x.double().median(1)) == repr(t.double().median(1))


def test_return_types_pickle_in_a_fresh_process():
    x, _ = pair(DATA)
    blob = pickle.dumps((x.max(0), x.topk(1), x.aminmax()))
    code = ('import pickle, sys\n'
            'r = pickle.loads(sys.stdin.buffer.read())\n'
            'print([type(v).__module__ + "." + type(v).__name__ for v in r])\n'
            'print(r[0].values.tolist(), r[2].max.tolist())\n')
    out = subprocess.run([sys.executable, '-c', code], input=blob, capture_output=True,
                         env=dict(os.environ), check=True).stdout.decode()
    module = Dl.return_types.__name__
    assert out.splitlines() == [str(['%s.max' % module, '%s.topk' % module,
                                     '%s.aminmax' % module]),
                                '[4.0, 3.0, 5.0] 5.0']


# ---- axis= and keepdims= ---------------------------------------------------------

def axis_cases(x, lib):
    """(label, call): ops with numpy's names, and ops torch writes in
    Python, which refuse them."""
    idx = lib.tensor([0, 2])
    return [
        ('sum', lambda: x.sum(axis=0)), ('sum_keep', lambda: lib.sum(x, axis=1, keepdims=True)),
        ('sum_tuple', lambda: x.sum(axis=(0, 1))),
        ('mean', lambda: lib.mean(x, axis=0)), ('mean_m', lambda: x.mean(axis=1, keepdims=True)),
        ('max', lambda: x.max(axis=0)), ('max_fn', lambda: lib.max(x, axis=1, keepdims=True)),
        ('min', lambda: lib.min(x, axis=0)), ('min_m', lambda: x.min(axis=1)),
        ('argmax', lambda: x.argmax(axis=1)), ('argmax_fn', lambda: lib.argmax(x, axis=0)),
        ('argmin', lambda: lib.argmin(x, axis=1, keepdims=True)),
        ('std', lambda: x.std(axis=0)), ('std_fn', lambda: lib.std(x, axis=1, keepdims=True)),
        ('var', lambda: lib.var(x, axis=0, unbiased=False)), ('var_m', lambda: x.var(axis=1)),
        ('prod', lambda: x.prod(axis=1)), ('prod_fn', lambda: lib.prod(x, axis=0, keepdims=True)),
        ('cat', lambda: lib.cat([x, x], axis=1)), ('concat', lambda: lib.concat([x, x], axis=0)),
        ('stack', lambda: lib.stack([x, x], axis=2)),
        ('cumsum', lambda: x.cumsum(axis=0)), ('cumsum_fn', lambda: lib.cumsum(x, axis=1)),
        ('cumprod', lambda: lib.cumprod(x, axis=0)),
        ('any', lambda: (x > 2).any(axis=0)), ('all', lambda: lib.all(x > -2, axis=1)),
        ('amax', lambda: x.amax(axis=0)), ('amin', lambda: lib.amin(x, axis=1, keepdims=True)),
        ('logsumexp', lambda: lib.logsumexp(x, axis=0)),
        ('logsumexp_m', lambda: x.logsumexp(axis=1, keepdims=True)),
        ('softmax', lambda: x.softmax(axis=1)), ('log_softmax', lambda: lib.log_softmax(x, axis=0)),
        ('median', lambda: x.median(axis=0)), ('nansum', lambda: lib.nansum(x, axis=1)),
        ('nanmean', lambda: x.nanmean(axis=0, keepdims=True)),
        ('kthvalue', lambda: x.kthvalue(1, axis=0)), ('topk', lambda: lib.topk(x, 2, axis=0)),
        ('sort', lambda: x.sort(axis=0)), ('argsort', lambda: lib.argsort(x, axis=1)),
        ('cummax', lambda: x.cummax(axis=1)), ('aminmax', lambda: lib.aminmax(x, axis=0)),
        ('std_mean', lambda: lib.std_mean(x, axis=0)),
        ('var_mean', lambda: lib.var_mean(x, axis=1, keepdims=True)),
        ('count_nonzero', lambda: lib.count_nonzero(x, axis=0)),
        ('squeeze', lambda: x[:1].squeeze(axis=0)), ('unsqueeze', lambda: x.unsqueeze(axis=1)),
        ('index_select', lambda: x.index_select(axis=1, index=idx)),
        ('gather', lambda: lib.gather(x, axis=0, index=idx.view(1, 2))),
        ('narrow', lambda: x.narrow(axis=0, start=1, length=1)),
        ('select', lambda: x.select(axis=1, index=0)), ('unbind', lambda: lib.unbind(x, axis=1)),
        ('size', lambda: x.size(axis=1)),
        ('stride', lambda: x.stride(axis=0)), ('chunk', lambda: lib.chunk(x, 2, axis=1)),
        ('index_select_fn', lambda: lib.index_select(x, axis=0, index=idx)),
        ('take_along_dim', lambda: lib.take_along_dim(x, idx.view(1, 2), axis=0)),
        ('scatter_add', lambda: lib.scatter_add(x, axis=0, index=idx.view(1, 2),
                                                src=x[:1, :2])),
        ('index_fill', lambda: x.index_fill(axis=1, index=idx, value=9.0)),
        ('squeeze_fn', lambda: lib.squeeze(x[None], axis=0)),
        ('unflatten_fn', lambda: lib.unflatten(x, axis=1, sizes=(3, 1))),
        # both names at once
        ('both', lambda: x.sum(dim=0, axis=0)), ('both_keep', lambda: x.sum(0, keepdim=True,
                                                                             keepdims=True)),
        ('both_fn', lambda: lib.max(x, 0, axis=1)),
        # keepdims where there is no keepdim
        ('cumsum_keepdims', lambda: x.cumsum(0, keepdims=True)),
        # torch's Python functions take neither
        ('norm', lambda: x.norm(axis=0)), ('norm_fn', lambda: lib.norm(x, axis=0)),
        ('norm_keep', lambda: lib.norm(x, dim=0, keepdims=True)),
        ('split', lambda: x.split(1, axis=0)), ('split_fn', lambda: lib.split(x, 1, axis=1)),
        ('unique', lambda: x.unique(axis=0)),
        ('unique_consecutive', lambda: lib.unique_consecutive(x, axis=0)),
        ('unflatten', lambda: x.unflatten(axis=1, sizes=(3, 1))),
        ('F.softmax', lambda: lib.nn.functional.softmax(x, axis=1)),
        ('msort', lambda: lib.msort(x, axis=0)),
    ]


@pytest.mark.parametrize('label', [c[0] for c in axis_cases(torch.zeros(1), torch)])
def test_numpy_argument_names(label):
    x, t = pair(DATA)
    got = outcome(dict(axis_cases(x, Dl))[label])
    expected = outcome(dict(axis_cases(t, torch))[label])
    if expected[0] == 'ok' and isinstance(expected[1], (list, tuple)) and not hasattr(
            expected[1], 'n_fields'):
        assert got[0] == 'ok' and len(got[1]) == len(expected[1])
        for a, b in zip(got[1], expected[1]):
            assert_same(a, b)
        return
    assert_like_torch(got, expected)


# ---- Tensor.new_zeros, new_ones, new_full, new_empty, new_tensor ------------------

def new_cases(f, x, lib):
    """f: float64 with requires_grad; x: int64."""
    return [
        ('zeros_varargs', lambda: f.new_zeros(2, 3)), ('zeros_tuple', lambda: f.new_zeros((2, 3))),
        ('zeros_list', lambda: f.new_zeros([2, 3])), ('zeros_size', lambda: f.new_zeros(x.shape)),
        ('zeros_0d', lambda: f.new_zeros(())), ('zeros_kw', lambda: f.new_zeros(size=(2,))),
        ('zeros_dtype', lambda: f.new_zeros(2, dtype=lib.int32)),
        ('zeros_rg', lambda: f.new_zeros(2, requires_grad=True)),
        ('zeros_cpu', lambda: x.new_zeros(1, device='cpu')),
        ('zeros_none', lambda: f.new_zeros()), ('zeros_float', lambda: f.new_zeros(2.0)),
        ('zeros_neg', lambda: f.new_zeros(-1)),
        ('zeros_dtype_pos', lambda: x.new_zeros(2, lib.float32)),
        ('ones', lambda: x.new_ones(2, 1)), ('ones_dtype', lambda: x.new_ones((2,), dtype=lib.bool)),
        ('ones_rg', lambda: f.new_ones([1], requires_grad=True)),
        ('empty', lambda: x.new_empty(3).shape), ('empty_dtype', lambda: x.new_empty(
            (3,), dtype=lib.float32).dtype == lib.float32),
        ('full', lambda: f.new_full((2,), 7)), ('full_int_fill', lambda: x.new_full((2,), 2.5)),
        ('full_bool_fill', lambda: x.new_full((2,), True)),
        ('full_kw', lambda: x.new_full(size=(2,), fill_value=3)),
        ('full_dtype', lambda: x.new_full([2, 1], 3, dtype=lib.float64)),
        ('full_rg', lambda: f.new_full((2,), 1.5, requires_grad=True)),
        ('full_varargs', lambda: f.new_full(2, 7)), ('full_no_value', lambda: x.new_full((2,))),
        ('tensor_list', lambda: x.new_tensor([1.5, 2.5])), ('tensor_scalar', lambda: f.new_tensor(3)),
        ('tensor_nested', lambda: f.new_tensor([[1, 2], [3, 4]])),
        ('tensor_np', lambda: x.new_tensor(np.array([1.5]))),
        ('tensor_dtype', lambda: x.new_tensor([1], dtype=lib.float32)),
        ('tensor_rg', lambda: f.new_tensor([1.0], requires_grad=True)),
        ('tensor_none', lambda: x.new_tensor()),
    ]


@pytest.mark.parametrize('label', [c[0] for c in new_cases(None, None, torch)])
def test_new_factories(label):
    f, tf = pair(np.ones(2), 'float64', requires_grad=True)
    x, tx = pair(np.zeros(2), 'int64')
    got = outcome(dict(new_cases(f, x, Dl))[label])
    expected = outcome(dict(new_cases(tf, tx, torch))[label])
    assert_like_torch(got, expected)
    if expected[0] == 'ok' and isinstance(expected[1], torch.Tensor):
        assert got[1].requires_grad == expected[1].requires_grad
        assert got[1].is_leaf and got[1].grad_fn is None


def test_new_tensor_from_a_tensor_copies_and_warns():
    f, tf = pair(np.arange(3.0), 'float64', requires_grad=True)
    x, tx = pair(np.zeros(2), 'int32')
    results = []
    for src, dst in ((tf, tx), (f, x)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            r = dst.new_tensor(src)
            r2 = dst.new_tensor(src, dtype=src.dtype, requires_grad=True)
        results.append((r, r2, caught))
    (te, te2, twarn), (got, got2, warn) = results
    assert_same(got, te)
    assert_same(got2, te2)
    assert not got.requires_grad and got.is_leaf
    assert got2.requires_grad and got2.is_leaf and got2.grad_fn is None
    assert [(w.category, str(w.message), w.filename) for w in warn] == [
        (w.category, str(w.message), w.filename) for w in twarn]
    assert warn[0].filename == __file__
    # a copy: writing to the source leaves it alone
    with Dl.no_grad():
        f.add_(1)
    assert got2.tolist() == [0.0, 1.0, 2.0]


# ---- inference_mode ----------------------------------------------------------------

def inference_report(lib):
    out = []
    x = lib.ones(2, requires_grad=True)
    with lib.no_grad():
        with lib.inference_mode(False):
            out.append(('no_grad/inference(False)', lib.is_grad_enabled(),
                        lib.is_inference_mode_enabled()))
    with lib.inference_mode() as entered:
        out.append(('inference', entered, lib.is_grad_enabled(), lib.is_inference_mode_enabled()))
        y = x * 2
        out.append(('made inside', y.requires_grad, y.grad_fn is None))
        with lib.inference_mode(False):
            out.append(('inference/inference(False)', lib.is_grad_enabled(),
                        lib.is_inference_mode_enabled()))
        with lib.inference_mode(mode=True):
            out.append(('nested', lib.is_grad_enabled(), lib.is_inference_mode_enabled()))
        out.append(('after nested', lib.is_grad_enabled(), lib.is_inference_mode_enabled()))
    out.append(('after', lib.is_grad_enabled(), lib.is_inference_mode_enabled()))

    @lib.inference_mode()
    def decorated(v):
        """doc"""
        return (v * 2).requires_grad, lib.is_grad_enabled(), lib.is_inference_mode_enabled()
    out.append(('decorated', decorated(x), decorated.__name__, decorated.__doc__))
    out.append(('decorated(False)', lib.inference_mode(False)(decorated)(x)))
    try:
        with lib.inference_mode():
            raise KeyError('k')
    except KeyError:
        pass
    out.append(('after raise', lib.is_grad_enabled(), lib.is_inference_mode_enabled()))
    out.append(('mode', lib.inference_mode(0).mode, lib.inference_mode().mode,
                lib.inference_mode(mode=False).mode))
    out.append(('paths', lib.autograd.inference_mode is lib.inference_mode,
                lib.autograd.grad_mode.inference_mode is lib.inference_mode))
    # without parentheses the function becomes the mode, as torch's
    bare = lib.inference_mode(decorated)
    out.append(('bare', outcome(bare)[:2]))
    out.append(('clone', type(lib.inference_mode(False).clone()).__name__,
                lib.inference_mode(False).clone().mode))
    return out


def test_inference_mode_as_torch():
    assert inference_report(Dl) == inference_report(torch)


def test_inference_mode_is_thread_local():
    import threading
    seen = []
    with Dl.inference_mode():
        thread = threading.Thread(target=lambda: seen.append(
            (Dl.is_inference_mode_enabled(), Dl.is_grad_enabled())))
        thread.start()
        thread.join()
        assert Dl.is_inference_mode_enabled()
    assert seen == [(False, True)]


@pytest.mark.skipif(SELF_CHECK, reason='torch makes inference tensors, which backward refuses')
def test_tensors_made_in_inference_mode_are_ordinary():
    # libdl has no inference tensors: what is made inside is a tensor that
    # autograd can use afterwards (torch would refuse to save it for backward)
    x, t = pair(np.arange(3.0), 'float32', requires_grad=True)
    with Dl.inference_mode():
        w = Dl.ones(3) * 2
    y = (x * w).sum()
    y.backward()
    assert_same(x.grad, torch.full((3,), 2.0))


def generator_report(lib):
    """A generator function decorated with each mode: its steps run in the
    mode, the caller's code between them in the caller's; send, throw,
    close and the return value go through."""
    log = []
    for mode in (lib.no_grad(), lib.inference_mode(), lib.enable_grad(),
                 lib.inference_mode(False)):
        @mode
        def gen(n):
            got = None
            for i in range(n):
                try:
                    got = yield (i, got, lib.is_grad_enabled(), lib.is_inference_mode_enabled())
                except ValueError as e:
                    log.append(('caught', str(e), lib.is_grad_enabled()))
                    got = 'thrown'
            return 'done'
        with lib.set_grad_enabled(type(mode).__name__ == 'no_grad'):
            g = gen(3)
            log.append(next(g))
            log.append((lib.is_grad_enabled(), lib.is_inference_mode_enabled()))
            log.append(g.send('a'))
            log.append(g.throw(ValueError('v')))
            try:
                g.send('b')
            except StopIteration as e:
                log.append(('stop', e.value))
            g2 = gen(3)
            next(g2)
            g2.close()
            log.append(('closed', lib.is_grad_enabled(), lib.is_inference_mode_enabled()))
        log.append(list(gen(2)))
        log.append(gen.__name__)
    return log


def test_decorated_generators_as_torch():
    assert generator_report(Dl) == generator_report(torch)
