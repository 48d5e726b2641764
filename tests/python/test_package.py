# test_package.py: the Python layer is the package dl: importable on its own
# and through gi.repository.Dl, in either order, its modules real modules
# (no exec), its classes where their __module__ says, and installed whole.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import ast
import builtins
import importlib
import multiprocessing
import os
import pickle
import re
import subprocess
import sys

import numpy as np
import pytest
import torch

from conftest import Dl, SELF_CHECK, assert_same, pair, rand_np

pytestmark = pytest.mark.skipif(SELF_CHECK, reason='checks libdl\'s package, not torch')

import dl  # noqa: E402

PACKAGE_DIR = os.path.dirname(dl.__file__)
SOURCE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(PACKAGE_DIR)))


def package_files():
    out = []
    for root, dirs, files in os.walk(PACKAGE_DIR):
        dirs[:] = [d for d in dirs if d != '__pycache__']
        out += [os.path.relpath(os.path.join(root, f), PACKAGE_DIR)
                for f in files if f.endswith('.py')]
    return sorted(out)


def run_python(code):
    """Runs code in a fresh interpreter with this one's environment."""
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         env=dict(os.environ))
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_the_override_is_the_package():
    assert Dl.nn is dl.nn
    assert Dl.nn.functional is dl.nn.functional
    assert Dl.optim is dl.optim
    assert Dl.autograd is dl.autograd
    assert Dl.utils.data is dl.utils.data
    assert Dl.tensor is dl.tensor and Dl.zeros is dl.zeros
    assert Dl.Tensor is dl.Tensor and Dl.Generator is dl.Generator
    assert Dl.nn.Module is dl.nn.Module and Dl.optim.Optimizer is dl.optim.Optimizer
    assert Dl.default_generator is dl.default_generator
    assert isinstance(Dl.default_generator, dl.Generator)
    # the exports named as builtins, without shadowing them in the package
    for name in ('float', 'int', 'bool', 'sum', 'max', 'min', 'abs', 'round', 'all', 'any',
                 'pow'):
        assert getattr(Dl, name) is getattr(dl, name)
    assert dl.float is dl.float32 and dl.int is dl.int32
    assert type(dl.tensor([1.0])) is dl.Tensor
    # <class 'dl.Tensor'>, as torch's <class 'torch.Tensor'>
    assert dl.Tensor.__module__ == 'dl' and dl.Tensor.__qualname__ == 'Tensor'


def test_import_forms():
    from gi.repository.Dl import nn
    from dl.nn import functional as F
    import dl.nn.functional
    import dl.utils.data
    assert nn is dl.nn and F is dl.nn.functional
    assert dl.utils.data.fashion_mnist is dl.datasets.fashion_mnist
    assert Dl.datasets is dl.datasets


@pytest.mark.parametrize('first', ['import dl', 'import dl.nn.functional',
                                   'from gi.repository import Dl'])
def test_fresh_interpreter(first):
    code = ("import gi\ngi.require_version('Dl', '1.0')\n" if 'gi.repository' in first else '')
    code += first + "\n" + (
        "import dl\n"
        "from gi.repository import Dl\n"
        "assert Dl.nn is dl.nn and Dl.tensor is dl.tensor\n"
        "assert type(dl.ones(2)) is dl.Tensor and type(Dl.ones(2)) is dl.Tensor\n"
        "assert isinstance(dl.default_generator, dl.Generator)\n"
        "assert dl.default_generator is Dl.default_generator\n"
        "m = dl.nn.Linear(2, 3)\n"
        "assert type(m) is dl.nn.Linear and isinstance(m, dl.nn.Module)\n"
        "assert type(dl.optim.SGD(m.parameters(), lr=0.1)) is dl.optim.SGD\n"
        "assert isinstance(dl.optim.Adam(m.parameters()), dl.optim.Optimizer)\n"
        "print(dl.nn.functional.relu(dl.tensor([-1.0, 2.0])).tolist())\n")
    assert run_python(code).strip() == '[0.0, 2.0]'


def test_no_module_uses_exec():
    for rel in package_files():
        tree = ast.parse(open(os.path.join(PACKAGE_DIR, rel)).read())
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in ('exec', 'eval', 'compile'), rel


def test_no_module_shadows_a_builtin():
    """Module-level names never shadow builtins (the exports named float,
    sum, ... are handed out by dl._api's __getattr__)."""
    for rel in package_files():
        tree = ast.parse(open(os.path.join(PACKAGE_DIR, rel)).read())
        for node in tree.body:
            names = []
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names = [node.name]
            elif isinstance(node, ast.Assign):
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            elif isinstance(node, ast.ImportFrom):
                names = [a.asname or a.name for a in node.names]
            for name in names:
                assert not hasattr(builtins, name) or name.startswith('__'), (rel, name)


def test_tensor_methods_are_named_once():
    """Every Tensor method is assigned once in the class body (a second
    definition would silently replace the first)."""
    tree = ast.parse(open(os.path.join(PACKAGE_DIR, '_tensor.py')).read())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == 'Tensor')
    seen = {}
    for node in cls.body:
        names = []
        if isinstance(node, ast.FunctionDef):
            is_setter = any(isinstance(d, ast.Attribute) and d.attr == 'setter'
                            for d in node.decorator_list)
            names = [] if is_setter else [node.name]
        elif isinstance(node, ast.Assign):
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
        for name in names:
            assert name not in seen, '%s defined at lines %d and %d' % (name, seen[name],
                                                                         node.lineno)
            seen[name] = node.lineno


def test_classes_live_where_their_module_says():
    for mod_name in ('dl', 'dl.nn', 'dl.optim', 'dl.autograd'):
        mod = importlib.import_module(mod_name)
        for name in mod.__all__:
            obj = getattr(mod, name)
            if isinstance(obj, type):
                home = importlib.import_module(obj.__module__)
                assert getattr(home, obj.__qualname__) is obj, (mod_name, name)
                # the package itself for Tensor, dtype and Size, as torch's
                assert obj.__module__ == 'dl' or obj.__module__.startswith('dl.'), (mod_name, name)


def test_meson_installs_every_module():
    meson = open(os.path.join(SOURCE_ROOT, 'bindings', 'python', 'meson.build')).read()
    listed = sorted(re.findall(r"'dl/([^']+\.py)'", meson))
    assert listed == package_files()


# ---- pickling ------------------------------------------------------------------

class Net(dl.nn.Module):
    """A module written in Python over C layers, pickled by the tests below."""

    def __init__(self, hidden):
        super().__init__()
        self.fc1 = dl.nn.Linear(4, hidden)
        self.act = dl.nn.ReLU()
        self.fc2 = dl.nn.Linear(hidden, 2, bias=False)
        self.scale = dl.nn.Parameter(dl.ones(2))
        self.hidden = hidden

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x))) * self.scale


def roundtrip(obj):
    return pickle.loads(pickle.dumps(obj))


@pytest.mark.parametrize('cls', [dl.Tensor, dl.Size, dl.dtype, dl.device, dl.Generator,
                                 dl.nn.Module, dl.nn.Linear, dl.nn.ReLU, dl.nn.Sequential,
                                 dl.nn.CrossEntropyLoss, dl.optim.Optimizer, dl.no_grad, Net])
def test_classes_pickle_by_reference(cls):
    data = pickle.dumps(cls)
    assert cls.__qualname__.encode() in data and cls.__module__.encode() in data
    assert pickle.loads(data) is cls


@pytest.mark.parametrize('name', ['float32', 'float64', 'float16', 'bfloat16', 'int32', 'int64',
                                  'uint8', 'bool'])
def test_dtypes_pickle(name):
    assert roundtrip(getattr(dl, name)) is getattr(dl, name)


def test_devices_and_sizes_pickle():
    assert roundtrip(dl.device('cpu')) == dl.device('cpu')
    assert repr(roundtrip(dl.device('cuda', 1))) == "device(type='cuda', index=1)"
    s = roundtrip(dl.ones(2, 3).shape)
    assert type(s) is dl.Size and s == (2, 3)


@pytest.mark.parametrize('name', ['float32', 'float64', 'float16', 'bfloat16', 'int32', 'int64',
                                  'uint8', 'bool'])
@pytest.mark.parametrize('shape', [(), (0,), (5,), (2, 3)])
def test_tensors_pickle(rng, name, shape):
    x, t = pair(rand_np(rng, shape, name), name)
    y = roundtrip(x)
    assert type(y) is dl.Tensor and y is not x
    assert_same(y, t)
    assert not y.requires_grad and y.is_contiguous()


def test_tensor_layouts_and_autograd_state_pickle():
    base = dl.arange(24.0).view(2, 3, 4)
    for view, ref in ((base.permute(2, 0, 1), torch.arange(24.0).view(2, 3, 4).permute(2, 0, 1)),
                      (base[:, 1:, ::2], torch.arange(24.0).view(2, 3, 4)[:, 1:, ::2]),
                      (base[1].expand(2, 3, 4), torch.arange(24.0).view(2, 3, 4)[1].expand(2, 3, 4))):
        assert not view.is_contiguous()
        assert_same(roundtrip(view), ref)
    w = dl.tensor([1.0, -2.0], requires_grad=True)
    (w * w).sum().backward()
    assert w.grad is not None
    u = roundtrip(w)
    assert u.requires_grad and u.is_leaf and u.grad is None       # as torch: no grad
    v = roundtrip(w * 3)                                          # a non-leaf: a leaf again
    assert v.requires_grad and v.is_leaf and v.grad_fn is None
    assert v.tolist() == [3.0, -6.0]
    # tensors shared in one pickle stay shared
    a, b = roundtrip((w, [w]))
    assert b[0] is a


def test_modules_pickle():
    dl.manual_seed(0)
    net = Net(8)
    net.eval()
    x = dl.randn(3, 4)
    y = roundtrip(net)
    assert type(y) is Net and y is not net
    assert y.hidden == 8 and not y.training and type(y.act) is dl.nn.ReLU
    assert [n for n, _ in y.named_parameters()] == [n for n, _ in net.named_parameters()]
    for (_, p), (_, q) in zip(y.named_parameters(), net.named_parameters()):
        assert p is not q and p.requires_grad and p.tolist() == q.tolist()
    assert y.fc2.bias is None
    assert y(x).tolist() == net(x).tolist()
    # the parameters are the module's own: training the copy moves the copy
    opt = dl.optim.SGD(y.parameters(), lr=0.1)
    y(x).sum().backward()
    opt.step()
    assert y.fc1.weight.tolist() != net.fc1.weight.tolist()
    seq = roundtrip(dl.nn.Sequential(dl.nn.Linear(2, 2), dl.nn.Tanh()))
    assert [type(m) for m in seq.children()] == [dl.nn.Linear, dl.nn.Tanh]
    assert_same(seq(dl.ones(1, 2)), torch.tensor(seq[1](seq[0](dl.ones(1, 2))).tolist()))


def test_tensors_go_to_a_spawned_worker_and_back():
    import mp_worker
    x = dl.tensor([[1.0, 2.0], [3.0, 4.0]]).t()
    ctx = multiprocessing.get_context('spawn')
    with ctx.Pool(1) as pool:
        pid, y = pool.apply(mp_worker.affine, (x,))
    assert pid != os.getpid()
    assert type(y) is dl.Tensor
    assert_same(y, torch.tensor([[1.0, 2.0], [3.0, 4.0]]).t() * 2 + 1)
    assert np.array_equal(x.numpy(), np.array([[1.0, 3.0], [2.0, 4.0]], dtype=np.float32))
