# test_layer_factory.py: the layers' factory arguments, device= and dtype=,
# as torch's factory_kwargs: every parameter and buffer of a layer built
# with them has the names, shapes, dtypes and device torch's layer has.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import pytest
import torch

from conftest import Dl

# (layer, positional arguments) over the layers that take dtype= in both
LAYERS = [
    ('Linear', (3, 4)),
    ('Conv1d', (2, 3, 3)),
    ('Conv2d', (2, 3, 3)),
    ('ConvTranspose2d', (2, 3, 3)),
    ('Embedding', (10, 4)),
    ('BatchNorm1d', (3,)),
    ('BatchNorm2d', (3,)),
    ('GroupNorm', (2, 4)),
    ('LayerNorm', (4,)),
    ('RNNCell', (3, 4)),
    ('LSTMCell', (3, 4)),
    ('GRUCell', (3, 4)),
    ('LSTM', (3, 4)),
    ('GRU', (3, 4)),
    ('MultiheadAttention', (4, 2)),
    ('TransformerEncoderLayer', (4, 2, 8)),
    ('TransformerDecoderLayer', (4, 2, 8)),
]

FLOATS = ['float64', 'float16', 'bfloat16']


def _members(m):
    """name -> (shape, dtype name) of every parameter and buffer."""
    out = {n: (tuple(p.shape), str(p.dtype)) for n, p in m.named_parameters()}
    out.update({n: (tuple(b.shape), str(b.dtype)) for n, b in m.named_buffers()})
    return out


@pytest.mark.parametrize('dtype', FLOATS)
@pytest.mark.parametrize('name,args', LAYERS, ids=[n for n, _ in LAYERS])
def test_dtype_as_torch(name, args, dtype):
    ours = getattr(Dl.nn, name)(*args, dtype=getattr(Dl, dtype))
    theirs = getattr(torch.nn, name)(*args, dtype=getattr(torch, dtype))
    assert _members(ours) == _members(theirs)
    # the process's default dtype is what it was
    assert Dl.get_default_dtype() == Dl.float32


@pytest.mark.parametrize('name,args', LAYERS, ids=[n for n, _ in LAYERS])
def test_device_and_dtype_together(name, args):
    m = getattr(Dl.nn, name)(*args, device='meta', dtype=Dl.float64)
    theirs = getattr(torch.nn, name)(*args, device='meta', dtype=torch.float64)
    assert _members(m) == _members(theirs)
    assert {str(t.device) for t in list(m.parameters()) + list(m.buffers())} == {'meta'}


def test_positional_device_and_dtype():
    m = Dl.nn.Linear(2, 3, True, 'meta', Dl.float64)
    assert (m.weight.device.type, m.weight.dtype) == ('meta', Dl.float64)
    b = Dl.nn.BatchNorm1d(3, 1e-5, 0.1, True, True, None, Dl.float64)
    assert (b.running_mean.dtype, b.num_batches_tracked.dtype) == (Dl.float64, Dl.int64)


def test_layer_trains_in_its_dtype():
    Dl.manual_seed(0)
    m = Dl.nn.Linear(3, 2, dtype=Dl.float64)
    x = Dl.randn(5, 3, dtype=Dl.float64)
    y = m(x)
    assert y.dtype == Dl.float64
    y.sum().backward()
    assert m.weight.grad.dtype == Dl.float64


@pytest.mark.parametrize('dtype', ['int64', 'int32', 'uint8'])
def test_non_floating_dtype_refused_as_torch(dtype):
    with pytest.raises(RuntimeError) as theirs:
        torch.nn.Linear(2, 3, dtype=getattr(torch, dtype))
    with pytest.raises(RuntimeError, match='floating point') as ours:
        Dl.nn.Linear(2, 3, dtype=getattr(Dl, dtype))
    assert type(ours.value) is type(theirs.value)
    assert Dl.get_default_dtype() == Dl.float32


def test_default_dtype_restored_after_a_failed_build():
    with pytest.raises((RuntimeError, ValueError)):
        Dl.nn.Linear(-1, 3, dtype=Dl.float64)
    assert Dl.get_default_dtype() == Dl.float32


def test_subclass_decides_what_its_dtype_does():
    # as in torch: a user's module passes dtype= on to its layers, or not
    class Net(Dl.nn.Module):
        def __init__(self, device=None, dtype=None, forward_it=True):
            super().__init__()
            kw = {'device': device, 'dtype': dtype} if forward_it else {}
            self.fc = Dl.nn.Linear(2, 2, **kw)
            self.norm = Dl.nn.LayerNorm(2, **kw)

    assert {p.dtype for p in Net(dtype=Dl.float64).parameters()} == {Dl.float64}
    assert {p.dtype for p in Net(dtype=Dl.float64, forward_it=False).parameters()} == {Dl.float32}
    assert {p.device.type for p in Net(device='meta', forward_it=False).parameters()} == {'cpu'}
