# test_safetensors.py: Dl.save / Dl.load and dl.safetensors against torch
# and against an independent reader and writer of the format
# (safetensors_ref.py): every dtype, 0-d, empty and strided tensors, module
# and optimizer state dicts, copy-on-write loading, hostile files.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import io
import json
import os
import random
import struct
import sys

import pytest
import torch

from conftest import DTYPES, Dl, assert_same, rand_np, th_from_np, pair

sys.path.insert(0, os.path.dirname(__file__))
import safetensors_ref  # noqa: E402

FORMAT = {'float32': 'F32', 'float64': 'F64', 'float16': 'F16', 'bfloat16': 'BF16',
          'int32': 'I32', 'int64': 'I64', 'uint8': 'U8', 'bool': 'BOOL'}
SHAPES = [(), (0,), (3,), (2, 3), (2, 0, 4), (1, 2, 3, 2)]


def raw(t):
    """The little-endian bytes of torch tensor @t, row-major."""
    t = t.contiguous()
    if t.dtype == torch.bfloat16:
        t = t.view(torch.int16)
    return t.numpy().tobytes()


def dl_raw(x):
    return Dl.Tensor.to_bytes(x).get_data()


def torch_tensors(rng):
    out = {}
    for name in DTYPES:
        for i, shape in enumerate(SHAPES):
            out['%s.%d' % (name, i)] = th_from_np(rand_np(rng, shape, name), name)
    return out


def test_reference_writer_loads_here(rng, tmp_path):
    """Tensors of torch, written by the independent writer, load equal."""
    tensors = torch_tensors(rng)
    path = tmp_path / 'ref.safetensors'
    safetensors_ref.write(path, {n: (FORMAT[str(t.dtype)[6:]], t.shape, raw(t))
                                 for n, t in tensors.items()}, {'source': 'ref'})
    loaded = Dl.load(path)
    assert sorted(loaded) == sorted(tensors)
    for n, t in tensors.items():
        assert_same(loaded[n], t, msg=n + ': ')
    assert Dl.safetensors.load_metadata(path) == {'source': 'ref'}


def test_written_here_reads_with_reference_reader(rng, tmp_path):
    tensors = torch_tensors(rng)
    dl_tensors = {n: pair(t.float().numpy() if t.dtype == torch.bfloat16 else t.numpy(),
                          str(t.dtype)[6:])[0] for n, t in tensors.items()}
    path = tmp_path / 'here.safetensors'
    Dl.safetensors.save_file(dl_tensors, path, metadata={'k': 'v'})
    read, metadata = safetensors_ref.read(path)
    assert metadata == {'k': 'v'}
    assert sorted(read) == sorted(tensors)
    for n, t in tensors.items():
        dtype, shape, data = read[n]
        assert dtype == FORMAT[str(t.dtype)[6:]]
        assert shape == tuple(t.shape)
        assert data == raw(t), n
    # the layout the format describes: keys sorted, data 8-byte aligned
    with open(path, 'rb') as f:
        blob = f.read()
    (n,) = struct.unpack('<Q', blob[:8])
    assert n % 8 == 0
    keys = [k for k in json.loads(blob[8:8 + n]) if k != '__metadata__']
    assert keys == sorted(keys)


def test_views_and_shared_storage(rng, tmp_path):
    x, t = pair(rand_np(rng, (4, 6)))
    views = {'base': x, 't': x.t(), 'narrow': x[:, 1:4], 'step': x[::2, ::3], 'row': x[1]}
    expected = {'base': t, 't': t.t(), 'narrow': t[:, 1:4], 'step': t[::2, ::3], 'row': t[1]}
    path = tmp_path / 'views.safetensors'
    Dl.save(views, path)
    loaded = Dl.load(path)
    for n in views:
        assert_same(loaded[n], expected[n], msg=n + ': ')
    # each written as its values: the loaded ones share nothing
    loaded['base'].zero_()
    assert_same(loaded['t'], expected['t'])


def test_load_is_mapped_and_copy_on_write(rng, tmp_path):
    x, t = pair(rand_np(rng, (256, 256)))
    path = tmp_path / 'cow.safetensors'
    Dl.save({'w': x}, path)
    before = path.read_bytes()
    loaded = Dl.load(path)
    w = loaded['w']
    assert Dl.Tensor.get_storage(w).is_external()  # no copy: a view of the mapping
    w.fill_(3.0)
    w[0, 0] = 5.0
    assert float(w[0, 0]) == 5.0 and float(w[1, 1]) == 3.0
    assert path.read_bytes() == before
    assert_same(Dl.load(path)['w'], t)


def test_module_state_dict_round_trip(rng, tmp_path):
    torch.manual_seed(0)
    ref = torch.nn.Sequential(torch.nn.Linear(5, 4), torch.nn.ReLU(), torch.nn.Linear(4, 3))
    path = tmp_path / 'model.safetensors'
    safetensors_ref.write(path, {n: ('F32', t.shape, raw(t.detach()))
                                 for n, t in ref.state_dict().items()})
    model = Dl.nn.Sequential(Dl.nn.Linear(5, 4), Dl.nn.ReLU(), Dl.nn.Linear(4, 3))
    result = model.load_state_dict(Dl.load(path))
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert list(model.state_dict()) == list(ref.state_dict())
    a, b = pair(rand_np(rng, (7, 5)))
    assert_same(model(a), ref(b).detach())
    # and back: Dl.save of the state dict, read by the reference reader
    Dl.save(model.state_dict(), tmp_path / 'back.safetensors')
    read, metadata = safetensors_ref.read(tmp_path / 'back.safetensors')
    assert metadata == {'format': 'pt'}
    for n, t in ref.state_dict().items():
        assert read[n][2] == raw(t.detach())


def test_load_state_dict_errors():
    m = Dl.nn.Linear(3, 2)
    with pytest.raises(RuntimeError, match='Missing key.*"bias"'):
        m.load_state_dict({'weight': Dl.zeros(2, 3)})
    with pytest.raises(RuntimeError, match='Unexpected key.*"extra"'):
        m.load_state_dict({'weight': Dl.zeros(2, 3), 'bias': Dl.zeros(2), 'extra': Dl.ones(1)})
    with pytest.raises(RuntimeError, match=r'size mismatch for weight.*\[3, 3\].*\[2, 3\]'):
        m.load_state_dict({'weight': Dl.zeros(3, 3), 'bias': Dl.zeros(2)})
    before = Dl.Tensor.to_bytes(m.weight).get_data()
    assert Dl.Tensor.to_bytes(m.weight).get_data() == before  # nothing copied on error
    r = m.load_state_dict({'weight': Dl.ones(2, 3)}, strict=False)
    assert r.missing_keys == ['bias'] and r.unexpected_keys == []
    assert float(m.weight.sum()) == 6.0 and m.weight.requires_grad


def test_optimizer_state_nested(rng, tmp_path):
    """An optimizer state_dict in torch's layout comes back exactly."""
    state = {'state': {0: {'step': Dl.tensor(3.0), 'exp_avg': pair(rand_np(rng, (2, 3)))[0],
                           'exp_avg_sq': pair(rand_np(rng, (2, 3)))[0]},
                       1: {'step': Dl.tensor(3.0), 'momentum_buffer': None}},
             'param_groups': [{'lr': 0.001, 'betas': (0.9, 0.999), 'eps': 1e-08,
                               'weight_decay': 0, 'amsgrad': False, 'maximize': False,
                               'foreach': None, 'capturable': False, 'max_lr': float('inf'),
                               'params': [0, 1], 'name': 'group "0"'}]}
    buf = io.BytesIO()
    Dl.save(state, buf, format='safetensors')
    buf.seek(0)
    back = Dl.load(buf)
    assert back['param_groups'] == state['param_groups']
    assert set(back['state']) == {0, 1}
    assert back['state'][1]['momentum_buffer'] is None
    for k in ('step', 'exp_avg', 'exp_avg_sq'):
        assert dl_raw(back['state'][0][k]) == dl_raw(state['state'][0][k])
    # other readers see the tensors under dotted names
    path = tmp_path / 'opt.pt'
    Dl.save(state, path, format='safetensors')
    read, metadata = safetensors_ref.read(path)
    assert 'state.0.exp_avg' in read and 'dl.tree' in metadata
    # a tensor reached twice is written once and loads as one tensor
    t = Dl.ones(3)
    back = Dl.load(io.BytesIO(_save_bytes([t, t])))
    back[0].add_(1)
    assert float(back[1][0]) == 2.0
    with pytest.raises(TypeError, match='cannot save an object of type object'):
        Dl.save({'x': object()}, io.BytesIO(), format='safetensors')


def _save_bytes(obj):
    buf = io.BytesIO()
    Dl.save(obj, buf, format='safetensors')
    return buf.getvalue()


def test_map_location_and_file_objects(rng, tmp_path):
    x, t = pair(rand_np(rng, (3,)))
    path = tmp_path / 'x.safetensors'
    Dl.save({'x': x}, str(path))
    for loc in (None, 'cpu', Dl.device('cpu'), lambda s, _: s):
        assert_same(Dl.load(path, map_location=loc)['x'], t)
    with open(path, 'rb') as f:
        assert_same(Dl.load(f)['x'], t)
    assert_same(Dl.safetensors.load_file(path)['x'], t)
    assert_same(Dl.safetensors.load(Dl.safetensors.save({'x': x}))['x'], t)


def test_hostile_files_raise(tmp_path):
    def load_bytes(b):
        return Dl.load(io.BytesIO(b))

    def entry(dtype='F32', shape=(1,), offsets=(0, 4)):
        return {'dtype': dtype, 'shape': list(shape), 'data_offsets': list(offsets)}

    def file(header, data=b''):
        text = header if isinstance(header, bytes) else json.dumps(header).encode()
        return struct.pack('<Q', len(text)) + text + data

    cases = [
        (b'\x01\x02', 'too few'),
        (struct.pack('<Q', 2 ** 64 - 8) + b'{}', 'runs past the end'),
        (struct.pack('<Q', 1000) + b'{}', 'runs past the end'),
        (file(b'[1]'), 'not a JSON object'),
        (file(b'{"a": ' + b'[' * 100000), 'nests deeper'),
        (file(b'{"a\xc3": 1}'), 'UTF-8'),
        (file({'a': entry('Q9')}, bytes(4)), 'unknown dtype'),
        (file({'a': entry(shape=(2 ** 62, 2 ** 62), offsets=(0, 0))}), r'more than 2\^63'),
        (file({'a': entry(offsets=(0, 8))}, bytes(4)), 'outside'),
        (file({'a': entry(offsets=(4, 8))}, bytes(8)), 'hole'),
        (file({'a': entry(), 'b': entry(offsets=(0, 4))}, bytes(4)), 'overlap'),
        (file({'a': entry()}, bytes(5)), 'cover 4 of the 5'),
        (file(b'{"\\ud800x": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]}}', bytes(1)),
         'lone surrogate'),
        (file(b'{"__metadata__": {"k": "\\udc00"}}'), 'lone surrogate'),
        (file(b'{"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}, '
              b'"a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}', bytes(8)),
         "'a' twice"),
    ]
    for blob, message in cases:
        with pytest.raises(RuntimeError, match=message):
            load_bytes(blob)
    with pytest.raises(FileNotFoundError):
        Dl.load(tmp_path / 'missing.pt')
    # a PyTorch zip checkpoint is read as one (test_torch_format.py tests them)
    torch.save({'x': torch.ones(2)}, tmp_path / 'torch.pt')
    assert float(Dl.load(tmp_path / 'torch.pt')['x'].sum()) == 2.0


def test_mutated_files_load_or_raise():
    """A seeded mutation loop through the Python path (the C suite runs
    20000): each mutated file loads or raises RuntimeError."""
    r = random.Random(1234)
    seed = _save_bytes({'a': Dl.arange(6.0).reshape(2, 3), 'b': Dl.ones(2, dtype=Dl.int64),
                        'c': Dl.tensor(True)})
    loaded = 0
    for _ in range(1000):
        blob = bytearray(seed)
        for _ in range(r.randint(1, 4)):
            pos = r.randrange(min(len(blob), 8 + 140))
            blob[pos] = r.choice(b'{}[]":,0123456789- ') if r.random() < 0.5 else r.randrange(256)
        try:
            out = Dl.load(io.BytesIO(bytes(blob)))
        except RuntimeError:
            continue
        loaded += 1
        for v in out.values():
            v.sum()
    assert loaded < 1000
