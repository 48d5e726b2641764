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


@pytest.mark.parametrize('name,args', [('Linear', (3, 4)), ('BatchNorm1d', (3,)),
                                       ('LSTM', (3, 4)), ('TransformerEncoderLayer', (4, 2, 8))])
def test_threads_build_in_their_own_dtypes(name, args):
    # two threads building layers at once, each with its own dtype= (and a
    # third with none): the dtype goes to the C layer, not through the
    # process's default dtype, so no thread sees another's
    import sys
    import threading
    start = threading.Barrier(3)
    seen = {}
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # the threads take turns often

    def build(key, dtype):
        start.wait()
        kw = {} if dtype is None else {'dtype': dtype}
        got = set()
        for _ in range(60):
            m = getattr(Dl.nn, name)(*args, **kw)
            got |= {str(t.dtype) for t in list(m.parameters()) + list(m.buffers())
                    if t.dtype.is_floating_point}
        seen[key] = got

    threads = [threading.Thread(target=build, args=(k, d))
               for k, d in (('f64', Dl.float64), ('f16', Dl.float16), ('default', None))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    sys.setswitchinterval(interval)
    assert seen == {'f64': {'torch.float64'}, 'f16': {'torch.float16'},
                    'default': {'torch.float32'}}
    assert Dl.get_default_dtype() == Dl.float32


def test_dtype_is_the_c_property():
    # the layer's DlModule:dtype holds what it was built in; the typelib
    # class takes it as any construct property
    assert Dl.nn.Linear(2, 3, dtype=Dl.float64).props.dtype == int(Dl.DType.FLOAT64)
    Dl.set_default_dtype(Dl.float64)
    try:
        m = Dl.nn.Linear(2, 3)
        given = Dl.nn.Linear(2, 3, dtype=Dl.float32)
    finally:
        Dl.set_default_dtype(Dl.float32)
    assert (m.weight.dtype, m.props.dtype) == (Dl.float64, int(Dl.DType.FLOAT64))
    assert given.weight.dtype == Dl.float32
    conv = Dl.nn.Conv1d(2, 3, 3, dtype=Dl.bfloat16)
    assert (conv.weight.dtype, conv.props.dtype) == (Dl.bfloat16, int(Dl.DType.BFLOAT16))


def test_dtype_given_to_a_subclass_base():
    # a subclass of a layer that gives its base dtype= positionally
    class Wide(Dl.nn.Linear):
        def __init__(self, dtype=None):
            super().__init__(2, 8, True, None, dtype)

    assert Wide(Dl.float64).weight.dtype == Dl.float64
    assert Wide().weight.dtype == Dl.float32
