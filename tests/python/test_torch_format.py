# test_torch_format.py: Dl.save / Dl.load in PyTorch's zip format, both
# ways through python3-torch, weights_only loading and hostile archives.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import collections
import io
import os
import pickle
import struct
import zipfile

import numpy as np
import pytest

from conftest import DTYPES, SELF_CHECK, Dl, dl_dtype, th_dtype, torch

libdl_only = pytest.mark.skipif(SELF_CHECK, reason="libdl's own choice, not torch's behaviour")


def np_of(t):
    """The values of a libdl or torch tensor as a numpy array (bfloat16 as
    float32)."""
    if t.dtype == dl_dtype('bfloat16') or t.dtype == torch.bfloat16:
        t = t.float()
    return np.array(t.detach().tolist())


def same(a, b):
    """Deep comparison of what libdl and torch loaded."""
    if isinstance(a, (dict, collections.OrderedDict)):
        assert isinstance(b, dict) and list(a.keys()) == list(b.keys())
        for k in a:
            same(a[k], b[k])
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b):
            same(x, y)
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    elif hasattr(a, 'shape') and hasattr(a, 'dtype'):
        assert tuple(a.shape) == tuple(b.shape), (a.shape, b.shape)
        assert str(a.dtype) == str(b.dtype)
        assert tuple(a.stride()) == tuple(b.stride())
        np.testing.assert_array_equal(np_of(a), np_of(b))
    else:
        assert a == b


# PyTorch's zip format, and its legacy (pre-1.6) one: the tests of loading
# and saving whole objects run in both (zipfmt is torch.save's
# _use_new_zipfile_serialization); test_torch_legacy_format.py has what is
# particular to the legacy format.
FORMATS = pytest.mark.parametrize('zipfmt', [pytest.param(True, id='zip'),
                                             pytest.param(False, id='legacy')])


def torch_save_bytes(obj, zipfmt=True):
    b = io.BytesIO()
    torch.save(obj, b, _use_new_zipfile_serialization=zipfmt)
    return b.getvalue()


def dl_save_bytes(obj, zipfmt=True):
    b = io.BytesIO()
    Dl.save(obj, b, _use_new_zipfile_serialization=zipfmt)
    return b.getvalue()


def dl_load(data, **kw):
    return Dl.load(io.BytesIO(data), **kw)


def torch_load(data, **kw):
    return torch.load(io.BytesIO(data), **kw)


def tensors_of_every_dtype(rng):
    out = {}
    for name in DTYPES:
        a = rng.standard_normal((3, 5)) * 10
        if name == 'bool':
            a = a > 0
        elif name == 'uint8':
            a = np.abs(a)
        out[name] = torch.tensor(a).to(th_dtype(name))
    return out


def to_dl(obj):
    """A torch object's twin in libdl (tensors copied through numpy)."""
    if isinstance(obj, torch.Tensor):
        if obj.dtype == torch.bfloat16:
            return Dl.tensor(obj.float().numpy()).to(Dl.bfloat16)
        return Dl.tensor(obj.numpy())
    if isinstance(obj, dict):
        return type(obj)((k, to_dl(v)) for k, v in obj.items())
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_dl(v) for v in obj)
    return obj


def nested(rng):
    return {'epoch': 7, 'loss': 0.25, 'name': 'run', 'flags': (True, None, -3),
            'np': rng.standard_normal((2, 3)), 'ints': np.arange(5, dtype=np.int32),
            'tensors': tensors_of_every_dtype(rng), 'list': [1.5, [torch.zeros(2)], {3: 'x'}],
            'scalar': torch.tensor(2.5), 'empty': torch.zeros(0, 3)}


# ---- torch.save -> Dl.load ---------------------------------------------------

def small_cnn():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Conv2d(1, 4, 3), torch.nn.ReLU(), torch.nn.Flatten(),
                               torch.nn.Linear(4 * 6 * 6, 5))


@pytest.mark.parametrize('where', ['path', 'bytesio'])
@FORMATS
def test_torch_state_dicts_load(tmp_path, where, zipfmt):
    torch.manual_seed(1)
    lstm = torch.nn.LSTM(3, 4, num_layers=2, batch_first=True)
    obj = {'cnn': small_cnn().state_dict(), 'lstm': lstm.state_dict()}
    if where == 'path':
        torch.save(obj, tmp_path / 'sd.pt', _use_new_zipfile_serialization=zipfmt)
        got = Dl.load(tmp_path / 'sd.pt')
    else:
        got = dl_load(torch_save_bytes(obj, zipfmt))
    same(got, obj)
    assert isinstance(got['cnn'], collections.OrderedDict)
    assert hasattr(got['cnn'], '_metadata')


@FORMATS
def test_torch_state_dict_into_dl_module(zipfmt):
    model = small_cnn()
    dl_model = Dl.nn.Sequential(Dl.nn.Conv2d(1, 4, 3), Dl.nn.ReLU(), Dl.nn.Flatten(),
                                Dl.nn.Linear(4 * 6 * 6, 5))
    dl_model.load_state_dict(dl_load(torch_save_bytes(model.state_dict(), zipfmt)))
    x = np.random.default_rng(2).standard_normal((3, 1, 8, 8)).astype(np.float32)
    np.testing.assert_allclose(np_of(dl_model(Dl.tensor(x))), model(torch.tensor(x)).detach(),
                               rtol=1e-5, atol=1e-6)


@FORMATS
def test_torch_optimizer_state_load(zipfmt):
    torch.manual_seed(3)
    model = torch.nn.Linear(4, 2)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    for _ in range(3):
        opt.zero_grad()
        model(torch.randn(5, 4)).pow(2).sum().backward()
        opt.step()
    sd = opt.state_dict()
    same(dl_load(torch_save_bytes(sd, zipfmt)), sd)


@FORMATS
def test_torch_nested_load(zipfmt):
    obj = nested(np.random.default_rng(4))
    same(dl_load(torch_save_bytes(obj, zipfmt)), obj)


@FORMATS
def test_torch_views_share_after_load(tmp_path, zipfmt):
    base = torch.arange(20.)
    obj = {'a': base[2:8], 'b': base.view(4, 5).t(), 'c': base}
    torch.save(obj, tmp_path / 'v.pt', _use_new_zipfile_serialization=zipfmt)
    for got in (Dl.load(tmp_path / 'v.pt'), dl_load(torch_save_bytes(obj, zipfmt))):
        same(got, obj)
        got['a'][0] = -1.0
        assert got['c'][2].item() == -1.0
        assert got['b'][2, 0].item() == -1.0


@FORMATS
def test_torch_whole_module_load(zipfmt):
    torch.manual_seed(5)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    model.eval()
    got = dl_load(torch_save_bytes(model, zipfmt))
    assert type(got).__name__ == 'Sequential' and not got.training
    assert type(got[0]).__name__ == 'Linear' and got[0].in_features == 3
    x = np.random.default_rng(6).standard_normal((2, 3)).astype(np.float32)
    np.testing.assert_allclose(np_of(got(Dl.tensor(x))), model(torch.tensor(x)).detach(),
                               rtol=1e-6, atol=1e-6)


@FORMATS
def test_map_location_variants(zipfmt):
    obj = {'w': torch.arange(6.).view(2, 3)}
    data = torch_save_bytes(obj, zipfmt)
    for loc in ('cpu', torch.device('cpu') if SELF_CHECK else Dl.device('cpu'), {'cpu': 'cpu'},
                lambda storage, location: storage):
        same(dl_load(data, map_location=loc), obj)


@FORMATS
def test_file_object_not_at_start(tmp_path, zipfmt):
    obj = {'x': torch.ones(3)}
    with open(tmp_path / 'f.pt', 'wb') as f:
        torch.save(obj, f, _use_new_zipfile_serialization=zipfmt)
    with open(tmp_path / 'f.pt', 'rb') as f:
        same(Dl.load(f), obj)


# ---- Dl.save -> torch.load ---------------------------------------------------

def dl_cnn():
    Dl.manual_seed(0)
    return Dl.nn.Sequential(Dl.nn.Conv2d(1, 4, 3), Dl.nn.ReLU(), Dl.nn.Flatten(),
                            Dl.nn.Linear(4 * 6 * 6, 5))


@pytest.mark.parametrize('where', ['path', 'bytesio'])
@FORMATS
def test_dl_state_dicts_torch_load(tmp_path, where, zipfmt):
    Dl.manual_seed(1)
    obj = {'cnn': dl_cnn().state_dict(),
           'lstm': Dl.nn.LSTM(3, 4, num_layers=2, batch_first=True).state_dict()}
    if where == 'path':
        Dl.save(obj, tmp_path / 'sd.pt', _use_new_zipfile_serialization=zipfmt)
        got = torch.load(tmp_path / 'sd.pt')
        got_safe = torch.load(tmp_path / 'sd.pt', weights_only=True)
        assert zipfile.is_zipfile(tmp_path / 'sd.pt') == zipfmt
    else:
        data = dl_save_bytes(obj, zipfmt)
        got = torch_load(data)
        got_safe = torch_load(data, weights_only=True)
    same(obj, got)
    same(obj, got_safe)


def test_dl_state_dict_into_torch_module():
    model = dl_cnn()
    t_model = small_cnn()
    t_model.load_state_dict(torch_load(dl_save_bytes(model.state_dict())))
    x = np.random.default_rng(2).standard_normal((3, 1, 8, 8)).astype(np.float32)
    np.testing.assert_allclose(t_model(torch.tensor(x)).detach(), np_of(model(Dl.tensor(x))),
                               rtol=1e-5, atol=1e-6)


@FORMATS
def test_dl_optimizer_state_torch_load(zipfmt):
    Dl.manual_seed(3)
    model = Dl.nn.Linear(4, 2)
    opt = Dl.optim.Adam(model.parameters(), lr=0.01)
    for _ in range(3):
        opt.zero_grad()
        model(Dl.randn(5, 4)).pow(2).sum().backward()
        opt.step()
    sd = opt.state_dict()
    got = torch_load(dl_save_bytes(sd, zipfmt))
    same(sd, got)
    t_model = torch.nn.Linear(4, 2)
    t_opt = torch.optim.Adam(t_model.parameters(), lr=0.01)
    t_opt.load_state_dict(got)


@FORMATS
def test_dl_nested_torch_load(zipfmt):
    obj = to_dl(nested(np.random.default_rng(4)))
    same(obj, torch_load(dl_save_bytes(obj, zipfmt)))
    same(obj, dl_load(dl_save_bytes(obj, zipfmt)))


@FORMATS
def test_dl_views_share_after_torch_load(tmp_path, zipfmt):
    base = Dl.arange(20.)
    obj = {'a': base[2:8], 'b': base.view(4, 5).t(), 'c': base}
    Dl.save(obj, tmp_path / 'v.pt', _use_new_zipfile_serialization=zipfmt)
    if zipfmt:
        with zipfile.ZipFile(tmp_path / 'v.pt') as z:
            assert len([n for n in z.namelist() if '/data/' in n]) == 1
    got = torch.load(tmp_path / 'v.pt')
    same(obj, got)
    got['a'][0] = -1.0
    assert got['c'][2].item() == -1.0 and got['b'][2, 0].item() == -1.0
    # loaded by libdl and saved again, the views still share one storage
    again = Dl.load(tmp_path / 'v.pt')
    got = torch_load(dl_save_bytes(again, zipfmt))
    got['a'][1] = -2.0
    assert got['c'][3].item() == -2.0


def test_dl_storage_alignment(tmp_path):
    Dl.save({'x': Dl.ones(3), 'y': Dl.zeros(5, dtype=Dl.float64)}, tmp_path / 'a.pt')
    with open(tmp_path / 'a.pt', 'rb') as f:
        raw = f.read()
    with zipfile.ZipFile(tmp_path / 'a.pt') as z:
        for info in z.infolist():
            assert info.compress_type == zipfile.ZIP_STORED
            if '/data/' in info.filename:
                n, e = struct.unpack('<HH', raw[info.header_offset + 26:info.header_offset + 30])
                assert (info.header_offset + 30 + n + e) % 64 == 0
        assert z.read('a/version') == b'3\n'


@FORMATS
def test_dl_whole_module_torch_load(zipfmt):
    Dl.manual_seed(5)
    model = Dl.nn.Sequential(Dl.nn.Linear(3, 4), Dl.nn.ReLU(), Dl.nn.Linear(4, 2))
    got = torch_load(dl_save_bytes(model, zipfmt))
    assert type(got) is torch.nn.Sequential
    assert type(got[0]) is torch.nn.Linear and got[0].out_features == 4
    assert type(got[1]) is torch.nn.ReLU
    x = np.random.default_rng(6).standard_normal((2, 3)).astype(np.float32)
    np.testing.assert_allclose(got(torch.tensor(x)).detach(), np_of(model(Dl.tensor(x))),
                               rtol=1e-6, atol=1e-6)
    back = dl_load(dl_save_bytes(model, zipfmt))
    np.testing.assert_allclose(np_of(back(Dl.tensor(x))), np_of(model(Dl.tensor(x))))


@FORMATS
def test_dl_conv_module_torch_load(zipfmt):
    model = dl_cnn()
    got = torch_load(dl_save_bytes(model, zipfmt))
    assert type(got[0]) is torch.nn.Conv2d and got[0].kernel_size == (3, 3)
    x = np.random.default_rng(7).standard_normal((2, 1, 8, 8)).astype(np.float32)
    np.testing.assert_allclose(got(torch.tensor(x)).detach(), np_of(model(Dl.tensor(x))),
                               rtol=1e-5, atol=1e-6)


@FORMATS
def test_parameter_round_trip(zipfmt):
    p = Dl.nn.Parameter(Dl.ones(2, 2))
    got = torch_load(dl_save_bytes({'p': p}, zipfmt))['p']
    assert isinstance(got, torch.nn.Parameter) and got.requires_grad
    back = dl_load(torch_save_bytes({'p': torch.nn.Parameter(torch.ones(2))}, zipfmt))['p']
    assert isinstance(back, Dl.nn.Parameter) and back.requires_grad


# ---- weights_only ------------------------------------------------------------

class Evil:
    def __reduce__(self):
        return (os.system, ('echo pwned > /dev/null',))


def evil_archive(obj):
    """A torch checkpoint whose pickle asks for @obj's globals."""
    b = io.BytesIO()
    with zipfile.ZipFile(b, 'w') as z:
        z.writestr('archive/data.pkl', pickle.dumps(obj, protocol=2))
        z.writestr('archive/version', '3\n')
    return b.getvalue()


@pytest.mark.parametrize('obj,name', [(Evil(), 'system'), ([os.getcwd], 'getcwd'),
                                      ({'x': eval}, 'eval'),
                                      (collections.Counter('ab'), 'Counter')])
def test_weights_only_refuses(obj, name):
    data = evil_archive(obj)
    with pytest.raises(pickle.UnpicklingError, match='Weights only load failed') as e:
        dl_load(data, weights_only=True)
    assert 'Unsupported' in str(e.value) and name in str(e.value)


def test_weights_only_names_global():
    with pytest.raises(pickle.UnpicklingError) as e:
        dl_load(evil_archive(Evil()), weights_only=True)
    assert 'system' in str(e.value)


@FORMATS
def test_weights_only_accepts_state_dicts(zipfmt):
    obj = {'sd': small_cnn().state_dict(), 'step': 3, 'ids': [1, 2], 'name': 'x',
           'dt': torch.float16, 'size': torch.Size([2, 3])}
    got = dl_load(torch_save_bytes(obj, zipfmt), weights_only=True)
    same(got['sd'], obj['sd'])
    assert got['step'] == 3 and got['ids'] == [1, 2] and got['name'] == 'x'
    assert str(got['dt']) == 'torch.float16' and tuple(got['size']) == (2, 3)


@libdl_only
def test_weights_only_builtins():
    # torch 2.x's allow-list (1.13's refuses these, and floats)
    obj = {'lr': 0.5, 's': {1, 2}, 'f': frozenset([3]), 'c': complex(1, 2), 'sl': slice(1, 2)}
    assert dl_load(torch_save_bytes(obj), weights_only=True) == obj


@FORMATS
def test_weights_only_refuses_whole_module(zipfmt):
    data = torch_save_bytes(torch.nn.Linear(2, 2), zipfmt)
    with pytest.raises(pickle.UnpicklingError):
        dl_load(data, weights_only=True)


Point = collections.namedtuple('Point', 'x y')


@pytest.mark.skipif(not hasattr(torch.serialization, 'add_safe_globals') and SELF_CHECK,
                    reason='torch 1.13 has no add_safe_globals')
def test_safe_globals_extend():
    data = evil_archive({'p': Point(1, 2)})
    with pytest.raises(pickle.UnpicklingError, match='Point'):
        dl_load(data, weights_only=True)
    with Dl.serialization.safe_globals([Point]):
        assert dl_load(data, weights_only=True)['p'] == Point(1, 2)
    with pytest.raises(pickle.UnpicklingError):
        dl_load(data, weights_only=True)
    Dl.serialization.add_safe_globals([Point])
    try:
        assert Point in Dl.serialization.get_safe_globals()
        assert dl_load(data, weights_only=True)['p'] == Point(1, 2)
    finally:
        Dl.serialization.clear_safe_globals()
    assert Dl.serialization.get_safe_globals() == []


class WordModel(Dl.nn.Module):
    """A user's Module subclass around libdl's layers (the shape of
    pytorch/examples' word_language_model), saved whole."""

    def __init__(self):
        super().__init__()
        self.encoder = Dl.nn.Embedding(10, 4)
        self.rnn = Dl.nn.LSTM(4, 5, 2, dropout=0.2)
        self.decoder = Dl.nn.Linear(5, 10)
        self.rnn_type = 'LSTM'


@pytest.mark.skipif(SELF_CHECK or not hasattr(Dl.serialization, 'safe_globals'),
                    reason='torch 1.13 has no safe_globals')
def test_whole_user_module_under_safe_globals(tmp_path):
    """The user's class named in safe_globals is rebuilt as one saved in
    PyTorch's layout is (its children and attributes back), as without
    the context."""
    m = WordModel()
    path = str(tmp_path / 'model.pt')
    Dl.save(m, path)
    for scoped in (True, False):
        if scoped:
            with Dl.serialization.safe_globals([WordModel, Dl.nn.Embedding, Dl.nn.LSTM,
                                                Dl.nn.Linear, Dl.nn.Dropout]):
                m2 = Dl.load(path)
        else:
            m2 = Dl.load(path)
        assert type(m2) is WordModel and m2.rnn_type == 'LSTM'
        assert repr(m2.rnn) == 'LSTM(4, 5, num_layers=2, dropout=0.2)'
        m2.rnn.flatten_parameters()
        for (n1, p1), (n2, p2) in zip(m.named_parameters(), m2.named_parameters()):
            assert n1 == n2 and Dl.equal(p1, p2)


# ---- hostile archives --------------------------------------------------------

def rewrite(data, name, content):
    """The archive @data with record @name's content replaced."""
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, 'w') as z:
        for info in src.infolist():
            body = src.read(info.filename)
            if info.filename.endswith(name):
                if content is None:
                    continue
                body = content
            z.writestr(info.filename, body)
    return out.getvalue()


class StorageRef:
    def __init__(self, storage_type, numel):
        self.storage_type, self.numel = storage_type, numel


class TensorRef:
    """Pickles as torch pickles a tensor, with any size, stride and offset."""

    def __init__(self, storage, offset, size, stride):
        self.args = (storage, offset, tuple(size), tuple(stride), False,
                     collections.OrderedDict())

    def __reduce__(self):
        return (torch._utils._rebuild_tensor_v2, self.args)


class TorchLikePickler(pickle.Pickler):
    def persistent_id(self, obj):
        if isinstance(obj, StorageRef):
            return ('storage', obj.storage_type, '0', 'cpu', obj.numel)
        return None


def bad_tensor_pickle(storage_numel, offset, size, stride, storage_type=None):
    """A data.pkl naming one tensor as torch does."""
    out = io.BytesIO()
    storage = StorageRef(storage_type or torch.FloatStorage, storage_numel)
    TorchLikePickler(out, protocol=2).dump(TensorRef(storage, offset, size, stride))
    return out.getvalue()


class NopeStorage:
    pass


def archive_with(pkl, storage_bytes):
    b = io.BytesIO()
    with zipfile.ZipFile(b, 'w') as z:
        z.writestr('archive/data.pkl', pkl)
        z.writestr('archive/data/0', storage_bytes)
        z.writestr('archive/version', '3\n')
    return b.getvalue()


def test_hand_made_tensor_pickle_is_valid():
    data = archive_with(bad_tensor_pickle(4, 1, (3,), (1,)), np.arange(4, dtype=np.float32)
                        .tobytes())
    np.testing.assert_array_equal(np_of(dl_load(data, weights_only=True)), [1, 2, 3])


@pytest.mark.parametrize('numel,offset,size,stride,nbytes', [
    (4, 0, (5,), (1,), 16),        # view past the storage
    (4, 3, (2,), (1,), 16),        # offset + size past the storage
    (4, 0, (2, 2), (1, 3), 16),    # strides reaching past
    # entry shorter than numel * itemsize (torch 1.13 does not check it)
    pytest.param(4, 0, (4,), (1,), 8, marks=libdl_only),
    (4, 0, (-1,), (1,), 16),       # negative size
])
def test_hostile_tensor_views(numel, offset, size, stride, nbytes):
    data = archive_with(bad_tensor_pickle(numel, offset, size, stride), b'\0' * nbytes)
    with pytest.raises(pickle.UnpicklingError, match='Weights only load failed'):
        dl_load(data, weights_only=True)
    with pytest.raises(RuntimeError):
        dl_load(data)
        dl_load(data, weights_only=True)


def test_hostile_unknown_storage_type():
    data = archive_with(bad_tensor_pickle(4, 0, (4,), (1,), NopeStorage), b'\0' * 16)
    with pytest.raises(pickle.UnpicklingError):
        dl_load(data, weights_only=True)


def test_hostile_truncated_and_missing():
    good = torch_save_bytes({'w': torch.ones(100)})
    for cut in (10, len(good) // 2, len(good) - 10):
        with pytest.raises((RuntimeError, zipfile.BadZipFile, EOFError, OSError,
                            pickle.UnpicklingError)):
            dl_load(good[:cut])
    with pytest.raises(RuntimeError):
        dl_load(rewrite(good, 'data.pkl', None))
    with pytest.raises(RuntimeError):
        dl_load(rewrite(good, 'data/0', None))
    with pytest.raises((RuntimeError, pickle.UnpicklingError, EOFError)):
        dl_load(rewrite(good, 'data.pkl', b'\x80\x02}q\x00(X'))


def test_hostile_recursion_bombs():
    deep = b'\x80\x02' + b'(' * 100000 + b'l' * 100000 + b'.'
    try:
        dl_load(archive_with(deep, b''), weights_only=True)
    except (RecursionError, pickle.UnpicklingError, RuntimeError, MemoryError):
        pass
    # a memo bomb: each list names the previous one twice (2^40 leaves, 40 lists)
    bomb = b'\x80\x02]q\x00'
    for i in range(1, 41):
        bomb += b'h' + bytes([i - 1]) + b'h' + bytes([i - 1]) + b'\x86q' + bytes([i])
    bomb += b'.'
    got = dl_load(archive_with(bomb, b''), weights_only=True)
    assert isinstance(got, tuple) and len(got) == 2


# ---- libdl's choices ---------------------------------------------------------

@libdl_only
def test_safetensors_by_name_and_argument(tmp_path):
    obj = {'w': Dl.ones(2, 3)}
    Dl.save(obj, tmp_path / 'm.safetensors')
    with open(tmp_path / 'm.safetensors', 'rb') as f:
        assert f.read(4) != b'PK\x03\x04'
    same(Dl.load(tmp_path / 'm.safetensors'), obj)
    Dl.save(obj, tmp_path / 'm.pt', format='safetensors')
    assert not zipfile.is_zipfile(tmp_path / 'm.pt')
    same(Dl.load(tmp_path / 'm.pt'), obj)
    Dl.save(obj, tmp_path / 'z.pt')
    assert zipfile.is_zipfile(tmp_path / 'z.pt')
    with pytest.raises(ValueError):
        Dl.save(obj, tmp_path / 'x.pt', format='hdf5')


@libdl_only
def test_loaded_tensor_does_not_change_file(tmp_path):
    torch.save({'w': torch.zeros(4)}, tmp_path / 'w.pt')
    got = Dl.load(tmp_path / 'w.pt')
    got['w'].add_(1.0)
    np.testing.assert_array_equal(torch.load(tmp_path / 'w.pt')['w'].numpy(), np.zeros(4))


@libdl_only
def test_zip64_records(tmp_path, monkeypatch):
    # what a checkpoint over 4 GiB gets, forced on a small one
    from dl import serialization
    monkeypatch.setattr(serialization, '_force_zip64', True)
    obj = {'w': Dl.arange(10.), 'n': 3}
    Dl.save(obj, tmp_path / 'z64.pt')
    with zipfile.ZipFile(tmp_path / 'z64.pt') as z:
        assert z.testzip() is None
    same(obj, torch.load(tmp_path / 'z64.pt'))
    same(obj, Dl.load(tmp_path / 'z64.pt'))


def test_save_to_unseekable_stream():
    class Stream(io.RawIOBase):
        def __init__(self):
            self.chunks = []

        def writable(self):
            return True

        def write(self, b):
            self.chunks.append(bytes(b))
            return len(b)

    s = Stream()
    obj = {'w': Dl.arange(5.)}
    Dl.save(obj, s)
    same(obj, torch_load(b''.join(s.chunks)))


def torch_layers():
    torch.manual_seed(8)
    bn = torch.nn.BatchNorm2d(3)
    bn.train()
    bn(torch.randn(4, 3, 5, 5))  # running statistics that are not the initial ones
    bn.eval()
    return {
        'lstm': (torch.nn.LSTM(3, 4, num_layers=2, batch_first=True),
                 lambda r: r.standard_normal((2, 5, 3))),
        'conv': (torch.nn.Conv2d(2, 3, (3, 2), stride=2, padding=1, bias=False),
                 lambda r: r.standard_normal((2, 2, 7, 6))),
        'bn': (bn, lambda r: r.standard_normal((2, 3, 4, 4))),
        'embed': (torch.nn.Sequential(torch.nn.Embedding(10, 4), torch.nn.LayerNorm(4),
                                      torch.nn.GELU()), lambda r: r.integers(0, 10, (2, 5))),
        'gru': (torch.nn.GRU(3, 4, bidirectional=True), lambda r: r.standard_normal((5, 2, 3))),
        'rnn': (torch.nn.RNN(3, 4, nonlinearity='relu', num_layers=2),
                lambda r: r.standard_normal((5, 2, 3))),
        'conv1d': (torch.nn.Sequential(torch.nn.Conv1d(2, 3, 3, padding=2, dilation=2),
                                       torch.nn.ELU(0.5), torch.nn.Hardtanh(-0.5, 0.7)),
                   lambda r: r.standard_normal((2, 2, 9))),
        'cnn': (torch.nn.Sequential(torch.nn.Conv2d(1, 2, 3, padding=(1, 0)),
                                    torch.nn.MaxPool2d(2, ceil_mode=True),
                                    torch.nn.AvgPool2d(2, 1, count_include_pad=False),
                                    torch.nn.Dropout2d(0.3), torch.nn.Softplus(2.0),
                                    torch.nn.AdaptiveMaxPool2d(2),
                                    torch.nn.AdaptiveAvgPool2d((1, 2))).eval(),
                lambda r: r.standard_normal((2, 1, 9, 8))),
        'upconv': (torch.nn.Sequential(torch.nn.ConvTranspose2d(2, 3, 3, stride=2,
                                                                output_padding=1),
                                       torch.nn.Upsample(scale_factor=2), torch.nn.Flatten(),
                                       torch.nn.Unflatten(1, (3, 16, 16))),
                   lambda r: r.standard_normal((2, 2, 3, 3))),
    }


def first(out):
    return out[0] if isinstance(out, tuple) else out


@pytest.mark.parametrize('name', ['lstm', 'conv', 'bn', 'embed', 'gru', 'rnn', 'conv1d', 'cnn',
                                  'upconv'])
def test_whole_layers_both_ways(name):
    model, make = torch_layers()[name]
    x = make(np.random.default_rng(9))
    if x.dtype == np.float64:
        x = x.astype(np.float32)
    expected = first(model(torch.tensor(x))).detach()
    dl_model = dl_load(torch_save_bytes(model))
    assert type(dl_model).__name__ == type(model).__name__
    assert dl_model.training == model.training
    got = first(dl_model(Dl.tensor(x)))
    np.testing.assert_allclose(np_of(got), expected, rtol=1e-5, atol=1e-5)
    back = torch_load(dl_save_bytes(dl_model))
    assert type(back) is type(model)
    for a, b in zip(back.modules(), model.modules()):
        assert type(a) is type(b)
        assert {k: v for k, v in vars(a).items() if not k.startswith('_')} == \
            {k: v for k, v in vars(b).items() if not k.startswith('_')}
        assert getattr(a, '_reversed_padding_repeated_twice', None) == \
            getattr(b, '_reversed_padding_repeated_twice', None)
    np.testing.assert_allclose(first(back(torch.tensor(x))).detach(), expected, rtol=1e-5,
                               atol=1e-5)
    same(back.state_dict(), model.state_dict())


def torch_losses():
    w = torch.tensor([0.5, 2.0, 1.0])
    return [torch.nn.CrossEntropyLoss(), torch.nn.CrossEntropyLoss(w, ignore_index=1,
                                                                    label_smoothing=0.1),
            torch.nn.NLLLoss(w, reduction='sum'), torch.nn.MSELoss(), torch.nn.L1Loss(),
            torch.nn.SmoothL1Loss(beta=0.5), torch.nn.HuberLoss(delta=2.0),
            torch.nn.KLDivLoss(reduction='batchmean', log_target=True),
            torch.nn.BCEWithLogitsLoss(pos_weight=torch.tensor([1.0, 2.0, 3.0])),
            torch.nn.BCELoss()]


@pytest.mark.parametrize('index', range(len(torch_losses())))
def test_whole_losses_both_ways(index):
    loss = torch_losses()[index]
    r = np.random.default_rng(index)
    x = r.standard_normal((4, 3)).astype(np.float32)
    if isinstance(loss, (torch.nn.CrossEntropyLoss, torch.nn.NLLLoss)):
        y = r.integers(0, 3, 4)
    elif isinstance(loss, torch.nn.BCELoss):
        x = 1 / (1 + np.exp(-x))
        y = r.random((4, 3)).astype(np.float32)
    else:
        y = r.standard_normal((4, 3)).astype(np.float32)
    expected = loss(torch.tensor(x), torch.tensor(y)).item()
    dl_loss = dl_load(torch_save_bytes(loss))
    assert type(dl_loss).__name__ == type(loss).__name__
    assert dl_loss(Dl.tensor(x), Dl.tensor(y)).item() == pytest.approx(expected, rel=1e-5)
    back = torch_load(dl_save_bytes(dl_loss))
    assert type(back) is type(loss)
    assert vars(back).keys() == vars(loss).keys()
    assert list(back._buffers) == list(loss._buffers)
    assert back(torch.tensor(x), torch.tensor(y)).item() == pytest.approx(expected, rel=1e-5)


def net_class(lib):
    """The same Module subclass, written for @lib."""
    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = lib.nn.Linear(3, 2)
            self.scale = 2.0
            self.register_buffer('offset', lib.ones(2))

        def forward(self, x):
            return self.fc(x) * self.scale + self.offset
    Net.__module__, Net.__qualname__ = __name__, 'Net'
    return Net


def test_user_module_both_ways(monkeypatch):
    import sys
    module = sys.modules[__name__]
    dl_net, torch_net = net_class(Dl), net_class(torch)
    x = np.random.default_rng(10).standard_normal((4, 3)).astype(np.float32)
    monkeypatch.setattr(module, 'Net', dl_net, raising=False)
    Dl.manual_seed(0)
    model = dl_net()
    expected = np_of(model(Dl.tensor(x)))
    data = dl_save_bytes(model)
    back = dl_load(data)
    assert type(back) is dl_net and back.scale == 2.0
    np.testing.assert_allclose(np_of(back(Dl.tensor(x))), expected)
    monkeypatch.setattr(module, 'Net', torch_net)  # a PyTorch script's own class
    t = torch_load(data)
    assert type(t) is torch_net and t.scale == 2.0
    np.testing.assert_allclose(t(torch.tensor(x)).detach(), expected, rtol=1e-6, atol=1e-6)
    data = torch_save_bytes(t)
    monkeypatch.setattr(module, 'Net', dl_net)
    again = dl_load(data)
    assert type(again) is dl_net
    np.testing.assert_allclose(np_of(again(Dl.tensor(x))), expected, rtol=1e-6, atol=1e-6)


def test_map_location_to_missing_device():
    data = torch_save_bytes({'w': torch.ones(2)})
    with pytest.raises(RuntimeError):
        dl_load(data, map_location='cuda:0')


def test_pickle_protocols_and_compressed_entries():
    obj = {'w': Dl.arange(6.).view(2, 3), 'n': [1, 'a']}
    for protocol in (2, 4, 5):
        b = io.BytesIO()
        Dl.save(obj, b, pickle_protocol=protocol)
        same(obj, torch_load(b.getvalue()))
        same(obj, dl_load(b.getvalue()))
    # an archive whose entries are deflated (not what torch writes; readers take it)
    src = zipfile.ZipFile(io.BytesIO(torch_save_bytes({'w': torch.arange(6.)})))
    out = io.BytesIO()
    with zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED) as z:
        for info in src.infolist():
            z.writestr(info.filename, src.read(info.filename))
    np.testing.assert_array_equal(np_of(dl_load(out.getvalue())['w']), np.arange(6.))


def test_hostile_huge_sizes():
    data = archive_with(bad_tensor_pickle(1, 0, (2 ** 40, 2 ** 40), (0, 0)), b'\0' * 4)
    with pytest.raises((RuntimeError, pickle.UnpicklingError)):
        dl_load(data, weights_only=True)


# ---- attention and the Transformer family, whole ---------------------------

def transformer_models():
    """name -> (the model made with @nn, libdl's or torch's; its inputs
    made from a numpy Generator): each kind of torch module __dict__."""
    def seq(*shape):
        return lambda r: tuple(r.standard_normal(s).astype(np.float32) for s in shape)
    return {
        'mha': (lambda nn: nn.MultiheadAttention(8, 2), seq((5, 2, 8), (5, 2, 8), (5, 2, 8))),
        'mha_kv': (lambda nn: nn.MultiheadAttention(8, 2, kdim=3, vdim=5, add_bias_kv=True,
                                                    bias=False, batch_first=True),
                   seq((2, 4, 8), (2, 6, 3), (2, 6, 5))),
        'mha_zero_attn': (lambda nn: nn.MultiheadAttention(6, 3, dropout=0.2, add_zero_attn=True,
                                                           kdim=6, vdim=4),
                          seq((3, 2, 6), (4, 2, 6), (4, 2, 4))),
        'encoder_layer': (lambda nn: nn.TransformerEncoderLayer(8, 2, 16), seq((5, 2, 8))),
        'encoder_layer_gelu': (lambda nn: nn.TransformerEncoderLayer(
            8, 2, 12, dropout=0.2, activation='gelu', layer_norm_eps=1e-6, batch_first=True,
            norm_first=True), seq((2, 5, 8))),
        'encoder_layer_module': (lambda nn: nn.TransformerEncoderLayer(8, 4, 16,
                                                                       activation=nn.GELU()),
                                 seq((5, 2, 8))),
        # activations run in Python, written as torch names them
        'encoder_layer_silu': (lambda nn: nn.TransformerEncoderLayer(
            8, 2, 16, activation=nn.functional.silu), seq((5, 2, 8))),
        'decoder_layer_softplus': (lambda nn: nn.TransformerDecoderLayer(
            8, 2, 16, activation=nn.functional.softplus), seq((4, 2, 8), (5, 2, 8))),
        'encoder': (lambda nn: nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2,
                                                     norm=nn.LayerNorm(8)), seq((5, 2, 8))),
        'encoder_no_norm': (lambda nn: nn.TransformerEncoder(
            nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 3,
            enable_nested_tensor=False), seq((2, 5, 8))),
        'decoder_layer': (lambda nn: nn.TransformerDecoderLayer(8, 2, 16, activation='gelu'),
                          seq((4, 2, 8), (5, 2, 8))),
        'decoder_layer_module': (lambda nn: nn.TransformerDecoderLayer(
            8, 2, 16, activation=nn.ReLU(), norm_first=True), seq((4, 2, 8), (5, 2, 8))),
        'decoder': (lambda nn: nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16), 2),
                    seq((4, 2, 8), (5, 2, 8))),
        'transformer': (lambda nn: nn.Transformer(8, 2, 2, 1, 16), seq((5, 2, 8), (4, 2, 8))),
        'transformer_gelu': (lambda nn: nn.Transformer(8, 4, 1, 2, 12, activation='gelu',
                                                       batch_first=True, norm_first=True),
                             seq((2, 5, 8), (2, 4, 8))),
    }


TRANSFORMER_MODELS = list(transformer_models())

# torch's Module internals, which layout() leaves out
MODULE_INTERNALS = ('_parameters', '_buffers', '_modules', '_non_persistent_buffers_set',
                    '_is_full_backward_hook')


def layout(model):
    """What a torch module holds, module by module: its class, its own
    __dict__ (keys in order and values), which parameters are None, its
    buffers and its children by name."""
    return [(type(m), [(k, v) for k, v in vars(m).items()
                       if k not in MODULE_INTERNALS and not k.endswith('_hooks')],
             [(k, v is None) for k, v in m._parameters.items()], list(m._buffers),
             list(m._modules)) for m in model.modules()]


def outputs(model, inputs, lib):
    out = model(*[lib.tensor(x) for x in inputs])
    return [np_of(o) for o in (out if isinstance(out, tuple) else (out,))]


def assert_outputs(got, expected):
    assert len(got) == len(expected)
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


def transformer_case(name, lib, seed):
    """(model made with @lib, eval mode; its inputs; its outputs; torch's
    layout of the same model, as torch reloads its own: torch's
    __setstate__ adds some attributes)."""
    make, inputs = transformer_models()[name]
    lib.manual_seed(seed)
    model = make(lib.nn).eval()
    x = inputs(np.random.default_rng(seed))
    return model, x, outputs(model, x, lib), layout(torch_load(torch_save_bytes(
        make(torch.nn).eval())))


@pytest.mark.parametrize('name', TRANSFORMER_MODELS)
def test_transformer_modules_both_ways(name):
    model, x, expected, torch_layout = transformer_case(name, torch, 11)
    dl_model = dl_load(torch_save_bytes(model))
    assert type(dl_model).__name__ == type(model).__name__ and not dl_model.training
    assert_outputs(outputs(dl_model, x, Dl), expected)
    back = torch_load(dl_save_bytes(dl_model))
    assert layout(back) == torch_layout
    assert_outputs(outputs(back, x, torch), expected)
    same(back.state_dict(), model.state_dict())


@pytest.mark.parametrize('name', TRANSFORMER_MODELS)
def test_dl_transformer_modules_torch_load(name):
    model, x, expected, torch_layout = transformer_case(name, Dl, 13)
    got = torch_load(dl_save_bytes(model))
    assert layout(got) == torch_layout
    assert_outputs(outputs(got, x, torch), expected)
    assert_outputs(outputs(dl_load(dl_save_bytes(model)), x, Dl), expected)


# ---- OneCycleLR's anneal_func: a method bound to the scheduler ---------------

def one_cycle(lib, strategy, optimizer):
    """(model, optimizer, OneCycleLR) made with @lib."""
    lib.manual_seed(15)
    model = lib.nn.Linear(3, 2)
    opt = getattr(lib.optim, optimizer)(model.parameters(), lr=0.1)
    return model, opt, lib.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=12,
                                                          anneal_strategy=strategy)


def train_lrs(lib, run, n):
    """The learning rates of @n training steps of @run."""
    model, opt, sched = run
    out = []
    for _ in range(n):
        opt.zero_grad()
        model(lib.ones(2, 3)).sum().backward()
        opt.step()
        sched.step()
        out.append(sched.get_last_lr())
    return out


def resumed_lrs(lib, strategy, optimizer, state_dict, n):
    """The learning rates of a fresh run of @lib (made with the other
    strategy: the state dict brings its own) resumed from @state_dict."""
    run = one_cycle(lib, 'linear' if strategy == 'cos' else 'cos', optimizer)
    run[2].load_state_dict(state_dict)
    return train_lrs(lib, run, n)


ONE_CYCLE_CASES = [('cos', 'Adam'), ('linear', 'SGD')]


@pytest.mark.parametrize('strategy,optimizer', ONE_CYCLE_CASES)
def test_one_cycle_state_both_ways(strategy, optimizer):
    for lib, save, other, load in ((Dl, dl_save_bytes, torch, torch_load),
                                   (torch, torch_save_bytes, Dl, dl_load)):
        run = one_cycle(lib, strategy, optimizer)
        train_lrs(lib, run, 4)
        got = resumed_lrs(other, strategy, optimizer, load(save(run[2].state_dict())), 6)
        np.testing.assert_allclose(got, train_lrs(lib, run, 6), rtol=1e-12)


@pytest.mark.parametrize('strategy,optimizer', ONE_CYCLE_CASES)
def test_torch_one_cycle_state_through_dl(strategy, optimizer):
    # a state dict libdl loaded from torch's file, saved again: torch resumes from it
    run = one_cycle(torch, strategy, optimizer)
    train_lrs(torch, run, 3)
    again = torch_load(dl_save_bytes(dl_load(torch_save_bytes(run[2].state_dict()))))
    got = resumed_lrs(torch, strategy, optimizer, again, 5)
    np.testing.assert_allclose(got, train_lrs(torch, run, 5), rtol=1e-12)


def test_dl_one_cycle_pickles_torch_objects():
    # anneal_func is getattr(scheduler, name): the scheduler object, and its
    # optimizer as Optimizer.__getstate__ gives it, as torch writes them
    def bound_scheduler(lib, save):
        run = one_cycle(lib, 'cos', 'Adam')
        train_lrs(lib, run, 2)
        return torch_load(save(run[2].state_dict()))['anneal_func'].__self__
    got, ref = bound_scheduler(Dl, dl_save_bytes), bound_scheduler(torch, torch_save_bytes)
    assert type(got) is type(ref) and list(vars(got)) == list(vars(ref))
    opt, ref_opt = got.optimizer, ref.optimizer
    assert type(opt) is type(ref_opt) and list(vars(opt)) == list(vars(ref_opt))
    # (libdl's groups list the scheduler's options before torch's foreach
    # and the like; torch's after them)
    assert [sorted(g) for g in opt.param_groups] == [sorted(g) for g in ref_opt.param_groups]
    assert [list(s) for s in opt.state.values()] == [list(s) for s in ref_opt.state.values()]
    assert all(p in opt.state for p in opt.param_groups[0]['params'])


@libdl_only
def test_unwritable_module_is_named():
    # a layer libdl does not write as torch's class, also inside a Transformer layer
    layer = Dl.nn.TransformerEncoderLayer(8, 2, 16)
    layer.linear1 = Dl.nn.LSTMCell(8, 16)
    for model in (Dl.nn.LSTMCell(2, 3), layer):
        with pytest.raises(pickle.PicklingError, match='LSTMCell'):
            dl_save_bytes(model)


@libdl_only
def test_one_cycle_state_through_safetensors(tmp_path):
    # the method kept by name in safetensors, then written as torch's
    run = one_cycle(Dl, 'linear', 'SGD')
    train_lrs(Dl, run, 3)
    Dl.save(run[2].state_dict(), tmp_path / 's.safetensors')
    state = Dl.load(tmp_path / 's.safetensors')
    assert pickle.loads(pickle.dumps(state))['anneal_func'].__name__ == '_annealing_linear'
    got = resumed_lrs(torch, 'linear', 'SGD', torch_load(dl_save_bytes(state)), 5)
    np.testing.assert_allclose(got, train_lrs(Dl, run, 5), rtol=1e-12)
    with pytest.raises(pickle.PicklingError, match='LambdaLR'):
        dl_save_bytes(Dl.optim.lr_scheduler.LambdaLR(run[1], lambda epoch: 0.5))
