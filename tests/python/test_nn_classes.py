# test_nn_classes.py: the nn classes libdl implements in C, used from
# Python as torch.nn's: the same construction, printed form, results and
# errors, subclassing, pickling, and Python modules with several inputs
# called from C.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import copy
import pickle
from collections import OrderedDict

import numpy as np
import pytest
import torch

from conftest import Dl, assert_same, pair, rand_np

nn, tnn = Dl.nn, torch.nn
needs_libdl = pytest.mark.skipif(Dl is torch, reason="libdl's own classes")

# (constructor arguments) per class, and the GType each is
LAYERS = [
    ('ReLU', (), {}, 'DlRelu'),
    ('ReLU', (), {'inplace': True}, 'DlRelu'),
    ('GELU', (), {}, 'DlGelu'),
    ('GELU', (), {'approximate': 'tanh'}, 'DlGelu'),
    ('SiLU', (), {}, 'DlSilu'),
    ('SiLU', (), {'inplace': True}, 'DlSilu'),
    ('Sigmoid', (), {}, 'DlSigmoid'),
    ('Tanh', (), {}, 'DlTanh'),
    ('Identity', (3,), {'unused': 1}, 'DlIdentity'),
    ('Flatten', (), {}, 'DlFlatten'),
    ('Flatten', (0, 1), {}, 'DlFlatten'),
    ('Softmax', (1,), {}, 'DlSoftmax'),
    ('Softmax', (), {'dim': -1}, 'DlSoftmax'),
    ('LogSoftmax', (0,), {}, 'DlLogSoftmax'),
    ('ELU', (0.5,), {}, 'DlElu'),
    ('ELU', (), {'inplace': True}, 'DlElu'),
    ('Hardtanh', (-0.5, 0.5), {}, 'DlHardtanh'),
    ('Softplus', (2, 3), {}, 'DlSoftplus'),
    ('Dropout', (0.0,), {}, 'DlDropout'),
    ('MaxPool2d', (2,), {'stride': 1}, 'DlMaxPool2d'),
    ('AvgPool2d', ((2, 3),), {'padding': 1, 'count_include_pad': False}, 'DlAvgPool2d'),
    ('AdaptiveAvgPool2d', ((2, None),), {}, 'DlAdaptiveAvgPool2d'),
]


def ids(case):
    return '%s%s%s' % (case[0], case[1] or '', case[2] or '')


@pytest.mark.parametrize('name,args,kwargs,gtype', LAYERS, ids=[ids(c) for c in LAYERS])
def test_layer_as_torch(rng, name, args, kwargs, gtype):
    m, tm = getattr(nn, name)(*args, **kwargs), getattr(tnn, name)(*args, **kwargs)
    assert repr(m) == repr(tm)
    x, t = pair(rand_np(rng, (2, 3, 4), 'float32'), 'float32')
    if kwargs.get('inplace'):
        y, u = m(x), tm(t)
        assert y is x and u is t
    assert_same(m(x), tm(t))
    if Dl is not torch:
        assert type(m).__gtype__.name == gtype
        assert isinstance(m, nn.Module)


@needs_libdl
@pytest.mark.parametrize('name,args,kwargs,gtype', LAYERS, ids=[ids(c) for c in LAYERS])
def test_layer_pickles(rng, name, args, kwargs, gtype):
    m = getattr(nn, name)(*args, **kwargs)
    m.note = 'kept'
    r = pickle.loads(pickle.dumps(m))
    assert type(r) is type(m) and repr(r) == repr(m) and r.note == 'kept'
    x = Dl.tensor(rand_np(rng, (2, 3, 4), 'float32'))
    assert_same(r(x.clone()), torch.from_numpy(m(x.clone()).numpy()))


def test_construction_errors():
    with pytest.raises(RuntimeError):  # torch at the call, libdl at once
        nn.GELU(approximate='cubic')(Dl.tensor([1.0]))
    with pytest.raises(TypeError):
        nn.ReLU(1, 2)
    with pytest.raises(ValueError):
        nn.CrossEntropyLoss(reduction='average')(Dl.zeros(2, 3), Dl.tensor([0, 1]))


@pytest.mark.parametrize("name", ["Softmax", "LogSoftmax", "Softmin"])
@pytest.mark.parametrize("shape", [(5,), (2, 3), (2, 3, 4)])
def test_softmax_layers_without_dim(rng, name, shape):
    """nn.Softmax() as torch's: dim None, printed so, picked at each call
    with the deprecation warning pointing at the caller's line; a copy
    keeps it; a layer with dim is the C layer"""
    m, tm = getattr(nn, name)(), getattr(tnn, name)()
    assert m.dim is None and repr(m) == repr(tm) == name + '(dim=None)'
    x = rng.standard_normal(shape)
    with pytest.warns(UserWarning) as rec:
        y = m(Dl.tensor(x))
    with pytest.warns(UserWarning) as trec:
        u = tm(torch.tensor(x))
    assert str(rec[0].message) == str(trec[0].message)
    assert rec[0].filename == trec[0].filename == __file__
    np.testing.assert_allclose(y.numpy(), u.numpy(), rtol=1e-12, atol=1e-12)
    assert copy.deepcopy(m).dim is None
    assert repr(getattr(nn, name)(-1)) == name + '(dim=-1)'


def test_sequential(rng):
    torch.manual_seed(0)
    ts = tnn.Sequential(tnn.Linear(4, 6), tnn.ReLU(), tnn.Linear(6, 2))
    s = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 2))
    with Dl.no_grad():
        for p, q in zip(s.parameters(), ts.parameters()):
            p.copy_(Dl.tensor(q.detach().numpy()))
    assert repr(s) == repr(ts)
    assert len(s) == 3 and [type(m).__name__ for m in s] == ['Linear', 'ReLU', 'Linear']
    assert type(s[1]).__name__ == 'ReLU' and type(s[-1]).__name__ == 'Linear'
    assert [n for n, _ in s.named_parameters()] == [n for n, _ in ts.named_parameters()]
    x, t = pair(rand_np(rng, (5, 4), 'float32'), 'float32')
    assert_same(s(x), ts(t))
    head = s[:2]
    assert type(head) is nn.Sequential and len(head) == 2
    assert_same(head(x), ts[:2](t))
    with pytest.raises(IndexError):
        s[3]
    s.append(nn.Tanh())
    assert len(s) == 4 and type(s[3]).__name__ == 'Tanh'


def test_sequential_from_ordered_dict(rng):
    s = nn.Sequential(OrderedDict([('fc', nn.Linear(3, 2)), ('act', nn.Sigmoid())]))
    ts = tnn.Sequential(OrderedDict([('fc', tnn.Linear(3, 2)), ('act', tnn.Sigmoid())]))
    assert repr(s) == repr(ts)
    assert [n for n, _ in s.named_parameters()] == ['fc.weight', 'fc.bias']
    assert s.fc is s[0]


def test_subclasses(rng):
    # a block named by subclassing Sequential, a Linear with its own forward
    class Block(nn.Sequential):
        def __init__(self, n):
            super().__init__(nn.Linear(n, n), nn.Tanh())

    class Doubled(nn.Linear):
        def forward(self, input):
            return super().forward(input) * 2

    b, d = Block(3), Doubled(3, 3)
    x = Dl.tensor(rand_np(rng, (2, 3), 'float32'))
    y = d(b(x))
    with Dl.no_grad():
        expected = (b[0](x).tanh() @ d.weight.t() + d.bias) * 2
    assert_same(y, torch.from_numpy(expected.numpy()))
    assert isinstance(b, nn.Sequential) and isinstance(d, nn.Linear)
    # from C, through the container
    s = nn.Sequential(b, d)
    assert_same(s(x), torch.from_numpy(y.detach().numpy()))


def test_cross_entropy_loss(rng):
    x, t = pair(rand_np(rng, (6, 5), 'float32'), 'float32', requires_grad=True)
    target = rng.integers(0, 5, size=6)
    y, u = Dl.tensor(target), torch.tensor(target)
    loss, tloss = nn.CrossEntropyLoss()(x, y), tnn.CrossEntropyLoss()(t, u)
    assert_same(loss, tloss)
    loss.backward()
    tloss.backward()
    assert_same(x.grad, t.grad)
    assert_same(nn.NLLLoss()(x.log_softmax(1), y), tnn.NLLLoss()(t.log_softmax(1), u))
    with pytest.raises(ValueError):
        nn.CrossEntropyLoss()(x, y[:3])


@needs_libdl
def test_python_module_with_several_inputs_from_c(rng):
    # C's forward_many reaches a Python forward(a, b) and gets its outputs
    class Pair(nn.Module):
        def forward(self, a, b):
            return a + b, a * b

    from gi.module import get_introspection_module
    lib = get_introspection_module('Dl')  # the C invokers, not the Python methods
    m = Pair()
    a, b = Dl.tensor([1.0, 2.0]), Dl.tensor([3.0, 4.0])
    out = lib.Module.forward_many(m, [a, b])
    assert [o.tolist() for o in out] == [[4.0, 6.0], [3.0, 8.0]]
    # and one input through C's forward
    class Twice(nn.Module):
        def forward(self, a):
            return a * 2

    assert lib.Module.forward(Twice(), a).tolist() == [2.0, 4.0]
    assert [o.tolist() for o in lib.Module.forward_many(Twice(), [a])] == [[2.0, 4.0]]


@needs_libdl
def test_c_classes_for_every_layer():
    # the layers of this issue are C classes (usable from GJS and Vala too)
    for name in ('Linear', 'Sequential', 'ReLU', 'GELU', 'SiLU', 'Sigmoid', 'Tanh', 'Identity',
                 'Flatten', 'Softmax', 'LogSoftmax', 'CrossEntropyLoss', 'NLLLoss'):
        assert getattr(nn, name).__gtype__.name.startswith('Dl'), name
