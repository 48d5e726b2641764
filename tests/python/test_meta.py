# test_meta.py: the meta device: tensors with a shape, a dtype and strides
# and no data, on which every op runs its shape, dtype and error logic.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The op table runs on meta against the CPU in test_devices.py (the
# cross-device suite); this file tests what is particular to meta: errors
# as on the CPU, refusals of every read of values (as in PyTorch),
# printing, factories, modules and autograd on meta.

import pytest
import torch
from gi.repository import GLib

import dl
from conftest import Dl

# torch warns that scatter_reduce is in beta
pytestmark = pytest.mark.filterwarnings('ignore:scatter_reduce')

def _outputs(out):
    """The tensors an op returned, in order."""
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _outputs(o)]
    return [out] if isinstance(out, dl.Tensor) else []


def _geometry(t):
    return None if t is None else (tuple(t.shape), t.dtype, t.stride())


# ---- errors: the same as on the CPU ------------------------------------------

BAD_SHAPES = [
    lambda m, d: m.ones(2, 3, device=d) @ m.ones(4, 5, device=d),
    lambda m, d: m.ones(2, 3, device=d) + m.ones(4, device=d),
    lambda m, d: m.cat([m.ones(2, 3, device=d), m.ones(2, 4, device=d)]),
    lambda m, d: m.ones(2, 3, device=d).view(4),
    lambda m, d: m.ones(2, 3, device=d).reshape(-1, -1),
    lambda m, d: m.ones(2, 3, device=d).sum(2),
    lambda m, d: m.ones(2, 3, device=d).transpose(0, 2),
    lambda m, d: m.ones(2, 3, device=d)[5],
    lambda m, d: m.nn.functional.conv2d(m.ones(1, 3, 8, 8, device=d), m.ones(4, 2, 3, 3, device=d)),
    lambda m, d: m.nn.functional.linear(m.ones(2, 3, device=d), m.ones(4, 5, device=d)),
    lambda m, d: m.ones(2, 3, device=d).expand(3, 3),
    lambda m, d: m.ones(2, 3, dtype=m.int64, device=d).bitwise_and(m.ones(2, 3, device=d)),
    lambda m, d: m.nn.functional.cross_entropy(m.ones(2, 3, device=d),
                                               m.ones(3, dtype=m.int64, device=d)),
]


@pytest.mark.parametrize('case', range(len(BAD_SHAPES)))
def test_errors_on_meta_are_the_cpu_errors(case):
    with pytest.raises(Exception) as on_cpu:
        BAD_SHAPES[case](dl, 'cpu')
    with pytest.raises(Exception) as on_meta:
        BAD_SHAPES[case](dl, 'meta')
    assert type(on_meta.value) is type(on_cpu.value)
    assert str(on_meta.value) == str(on_cpu.value)


def test_mixed_devices_are_refused():
    a, b = dl.ones(2, 3, device='meta'), dl.ones(2, 3)
    for fn in (lambda: a + b, lambda: b * a, lambda: a @ b.t(), lambda: dl.cat([a, b]),
               lambda: a.add_(b), lambda: dl.where(a > 0, a, b)):
        with pytest.raises(RuntimeError, match='expected all tensors to be on the same device'):
            fn()
    # a 0-d CPU tensor, a number among them, goes with any device, as in torch
    assert (a + dl.tensor(2.0)).is_meta
    assert (dl.tensor(2.0) * a).is_meta
    assert a.add_(dl.tensor(1.0)) is a
    assert (a * 2).is_meta and (2 ** a).is_meta


def test_copy_into_meta_takes_any_source():
    # as torch: copy_ into a meta tensor takes a source on any device and
    # writes nothing; out of a meta tensor there is nothing to copy
    for m in (dl, torch):
        a = m.empty(2, 3, device='meta')
        assert a.copy_(m.ones(3)) is a and a.is_meta
        assert a.copy_(m.ones(2, 3, dtype=m.float64)) is a
        with pytest.raises((RuntimeError, NotImplementedError), match='meta'):
            m.ones(2, 3).copy_(a)
    # torch 1.13 checks no shapes on meta here; libdl runs the CPU's check
    with pytest.raises(RuntimeError, match='cannot be broadcast'):
        dl.empty(2, 3, device='meta').copy_(dl.ones(4))
    with pytest.raises(GLib.Error) as e:
        Dl.Tensor.copy_(dl.ones(2, 3), dl.empty(2, 3, device='meta'))
    assert e.value.code == int(Dl.Error.NOT_SUPPORTED)


# ---- what needs values --------------------------------------------------------

def test_reading_values_is_refused():
    a = dl.ones(2, 3, device='meta')
    for fn in (lambda: a.sum().item(), lambda: float(a.sum()), lambda: bool(a.sum() > 0),
               lambda: a.tolist(), lambda: a.cpu(), lambda: a.to('cpu'),
               lambda: dl.Tensor.to_bytes(a)):
        with pytest.raises(RuntimeError, match='meta'):
            fn()
    for fn in (a.nonzero, a.unique, lambda: a[a > 0], lambda: a.masked_select(a > 0),
               lambda: dl.nn.functional.one_hot(dl.zeros(3, dtype=dl.int64, device='meta')),
               lambda: dl.bincount(dl.zeros(3, dtype=dl.int64, device='meta'))):
        with pytest.raises(RuntimeError, match="meta"):
            fn()
    with pytest.raises(TypeError, match="can't convert meta device type tensor to numpy"):
        a.numpy()
    # what only needs shapes works: an explicit number of classes
    hot = dl.nn.functional.one_hot(dl.zeros(3, dtype=dl.int64, device='meta'), 5)
    assert hot.is_meta and hot.shape == (3, 5)


def test_refusals_are_not_supported_errors():
    a = dl.ones(2, 3, device='meta')
    for fn in (lambda: Dl.Tensor.item(a.sum()), lambda: Dl.Tensor.to_bytes(a)):
        with pytest.raises(GLib.Error) as e:
            fn()
        assert e.value.code == int(Dl.Error.NOT_SUPPORTED)


@pytest.mark.parametrize('make', [
    lambda m: m.empty(2, 3, device='meta'),
    lambda m: m.empty(3, device='meta', dtype=m.int64),
    lambda m: m.empty((), device='meta', requires_grad=True),
    lambda m: m.empty(2, 0, 4, device='meta', dtype=m.float64),
    lambda m: m.empty(2, 3, device='meta', requires_grad=True) * 2,
    lambda m: m.zeros(4, 5, device='meta', dtype=m.bool),
])
def test_printing_is_torchs(make):
    assert repr(make(dl)) == repr(make(torch))


# ---- factories, moves, modules ------------------------------------------------

def test_factories_and_moves():
    meta = dl.device('meta')
    assert meta.type == 'meta' and meta.index is None and str(meta) == 'meta'
    assert dl.device('meta') == 'meta' and repr(meta) == "device(type='meta')"
    for t in (dl.empty(2, 3, device='meta'), dl.zeros(2, 3, device=meta),
              dl.randn(2, 3, device='meta'), dl.arange(6, device='meta'),
              dl.tensor([[1, 2, 3], [4, 5, 6]], device='meta'),
              dl.full((2, 3), 7.0, device='meta')):
        assert t.is_meta and t.device == meta
        assert not dl.ones(1).is_meta
    c = dl.randn(3, 4).t()
    m = c.to('meta')
    assert m.is_meta and m.shape == c.shape and m.stride() == c.stride()
    assert m.to('meta') is m
    assert c.to('cpu') is c and c.cpu() is c
    assert dl.zeros(2, 3, device='meta').to(dl.float64).dtype == dl.float64
    with dl.device('meta'):
        assert dl.ones(3).is_meta and dl.tensor([1.0]).is_meta
        assert not dl.ones(3, device='cpu').is_meta
    assert not dl.ones(3).is_meta


def test_autograd_through_meta():
    x = dl.randn(4, 3).to('meta').requires_grad_()
    w = dl.empty(3, 5, device='meta', requires_grad=True)
    loss = dl.nn.functional.log_softmax(x @ w, 1).mean()
    assert loss.is_meta and loss.grad_fn is not None
    loss.backward()
    assert x.grad.is_meta and x.grad.shape == (4, 3)
    assert w.grad.is_meta and w.grad.shape == (3, 5)
    # the gradient of a move to meta would go back to the CPU: no values
    c = dl.randn(2, requires_grad=True)
    m = c.to('meta')
    assert m.grad_fn.name() == 'ToCopyBackward0'
    with pytest.raises(RuntimeError, match='cannot copy out of meta tensor'):
        m.sum().backward()


def _module_cases(m):
    return [
        (lambda: m.nn.Linear(6, 4), lambda d: (m.empty(5, 6, device=d),)),
        (lambda: m.nn.Conv2d(3, 4, 3, padding=1), lambda d: (m.empty(2, 3, 8, 8, device=d),)),
        (lambda: m.nn.LSTM(3, 5, num_layers=2), lambda d: (m.empty(4, 2, 3, device=d),)),
        (lambda: m.nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0),
         lambda d: (m.empty(5, 3, 16, device=d),)),
    ]


@pytest.mark.parametrize('case', range(4), ids=['Linear', 'Conv2d', 'LSTM', 'Transformer'])
def test_module_moved_to_meta(case):
    make, inputs = _module_cases(dl)[case]
    on_cpu = make()
    on_meta = make()
    params = list(on_meta.parameters())
    assert on_meta.to('meta') is on_meta
    # the parameters stay the objects they were, now on meta
    assert [id(p) for p in on_meta.parameters()] == [id(p) for p in params]
    assert all(p.is_meta for p in on_meta.parameters())
    outs = {}
    for name, mod in (('cpu', on_cpu), ('meta', on_meta)):
        out = mod(*inputs(name))
        flat = _outputs(out)
        sum(o.sum() for o in flat).backward()
        outs[name] = ([_geometry(o) for o in flat],
                      [_geometry(p.grad) for p in mod.parameters()])
        assert all(o.is_meta == (name == 'meta') for o in flat)
    assert outs['meta'] == outs['cpu']
    with pytest.raises(RuntimeError, match='cannot copy out of meta tensor'):
        on_meta.to('cpu')


def test_module_built_on_meta_allocates_nothing():
    cpu, meta = Dl.Device.get('cpu'), Dl.Device.get('meta')
    before, peak = cpu.get_memory_allocated(), cpu.get_max_memory_allocated()
    layer = dl.nn.Linear(4096, 4096, device='meta')
    assert layer.weight.is_meta and layer.weight.shape == (4096, 4096)
    assert layer.bias.is_meta and layer.bias.shape == (4096,)
    # 64 MiB of weights, none of them anywhere
    assert cpu.get_memory_allocated() - before < 4096
    assert cpu.get_max_memory_allocated() - peak < 4096
    assert meta.get_memory_allocated() == 0 and meta.get_memory_reserved() == 0
    y = layer(dl.empty(8, 4096, device='meta'))
    assert y.is_meta and y.shape == (8, 4096)
    assert meta.get_memory_allocated() == 0
    # the default device is the CPU again after the layer was built
    assert not dl.ones(1).is_meta
    model = dl.nn.Sequential(dl.nn.Linear(1024, 1024), dl.nn.ReLU(), dl.nn.Linear(1024, 10))
    model.to('meta')
    assert sum(p.numel() for p in model.parameters()) == 1024 * 1024 + 1024 + 1024 * 10 + 10


def test_factories_of_values_write_nothing():
    # 80 GB of int64 and 4 GB of float32 that a CPU could not hold
    a = dl.arange(10 ** 10, device='meta')
    assert a.is_meta and a.shape == (10 ** 10,) and a.dtype == dl.int64
    s = dl.linspace(0, 1, 10 ** 9, device='meta')
    assert s.is_meta and s.shape == (10 ** 9,)
    assert dl.randn(3).to(dl.empty(2, device='meta')).is_meta


def test_training_step_on_meta():
    model = dl.nn.Sequential(dl.nn.Embedding(10, 3), dl.nn.Flatten(), dl.nn.Linear(15, 2),
                             dl.nn.BatchNorm1d(2)).to('meta')
    opt = dl.optim.Adam(model.parameters(), lr=0.1)
    x = dl.zeros(4, 5, dtype=dl.int64, device='meta')
    loss = dl.nn.functional.cross_entropy(model(x), dl.zeros(4, dtype=dl.int64, device='meta'))
    assert loss.is_meta and loss.shape == ()
    loss.backward()
    opt.step()
    assert all(p.is_meta and p.grad.shape == p.shape for p in model.parameters())


def test_indexing_on_meta():
    a = dl.empty(4, 5, device='meta')
    c = dl.empty(4, 5)
    for idx in ([0, 1], ([0, 1], [2, 3]), (slice(None), [4, 0, 1]),
                dl.zeros(3, dtype=dl.int64), (1, slice(1, 3))):
        meta_idx = idx.to('meta') if isinstance(idx, dl.Tensor) else idx
        assert _geometry(a[meta_idx]) == _geometry(c[idx])
        assert a[meta_idx].is_meta
    # assignments of numbers, lists and tensors: their values go nowhere
    a[[0, 1]] = 3.0
    a[1] = 2.0
    a[:, 1:3] = 0
    a[0] = [1, 2, 3, 4, 5]
    a[[0, 1]] = [1, 2, 3, 4, 5]
    a[dl.zeros(3, dtype=dl.int64, device='meta')] = dl.empty(5, device='meta')
    assert a.is_meta and a.shape == (4, 5)
    # a boolean mask selects as many elements as are true: values
    with pytest.raises(RuntimeError, match="meta"):
        a[a > 0] = 1.0
