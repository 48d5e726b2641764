# test_torch_legacy_format.py: Dl.load and Dl.save in PyTorch's legacy
# (pre-1.6, non-zip) format, both ways through python3-torch
# (torch.save(..., _use_new_zipfile_serialization=False)), weights_only
# loading and hostile streams.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import collections
import io
import os
import pickle
import struct

import numpy as np
import pytest

from conftest import SELF_CHECK, Dl, torch
from test_torch_format import (Evil, StorageRef, TensorRef, dl_cnn, nested, np_of, same, small_cnn,
                               tensors_of_every_dtype, to_dl)

libdl_only = pytest.mark.skipif(SELF_CHECK, reason="libdl's own choice, not torch's behaviour")

LEGACY_ERRORS = (RuntimeError, pickle.UnpicklingError, EOFError, AssertionError)


def torch_legacy(obj):
    b = io.BytesIO()
    torch.save(obj, b, _use_new_zipfile_serialization=False)
    return b.getvalue()


def dl_legacy(obj):
    b = io.BytesIO()
    Dl.save(obj, b, _use_new_zipfile_serialization=False)
    return b.getvalue()


def dl_load(data, **kw):
    return Dl.load(io.BytesIO(data), **kw)


def legacy_stream(obj_pickle, keys, data=b'', little_endian=True):
    """A legacy stream by hand: the magic, the version, sys_info, the
    object's pickle @obj_pickle, the keys and @data."""
    out = pickle.dumps(0x1950a86a20f9469cfc6c, protocol=2) + pickle.dumps(1001, protocol=2)
    out += pickle.dumps({'protocol_version': 1001, 'little_endian': little_endian,
                         'type_sizes': {'short': 2, 'int': 4, 'long': 8}}, protocol=2)
    return out + obj_pickle + pickle.dumps(keys, protocol=2) + data


def storage_record(numel, raw):
    return struct.pack('<q', numel) + raw


# ---- torch.save(legacy) -> Dl.load ----------------------------------------------

def test_torch_legacy_is_legacy():
    data = torch_legacy({'w': torch.ones(2)})
    assert data[:2] == b'\x80\x02' and not data.startswith(b'PK')


@pytest.mark.parametrize('where', ['path', 'bytesio', 'file'])
def test_every_dtype_loads(tmp_path, where):
    obj = tensors_of_every_dtype(np.random.default_rng(1))
    obj['big'] = torch.arange(1000, dtype=torch.float64).view(10, 100)
    obj['empty'] = torch.zeros(0, 3)
    obj['scalar'] = torch.tensor(7, dtype=torch.int64)
    data = torch_legacy(obj)
    (tmp_path / 'old.pt').write_bytes(data)
    if where == 'path':
        got = Dl.load(tmp_path / 'old.pt')
    elif where == 'bytesio':
        got = dl_load(data)
    else:
        with open(tmp_path / 'old.pt', 'rb') as f:
            got = Dl.load(f)
    same(got, obj)


def test_whole_cnn_module():
    model = small_cnn()
    got = dl_load(torch_legacy(model))
    x = np.random.default_rng(7).standard_normal((2, 1, 8, 8)).astype(np.float32)
    np.testing.assert_allclose(np_of(got(Dl.tensor(x))), model(torch.tensor(x)).detach(),
                               rtol=1e-5, atol=1e-6)


def test_stream_not_at_start():
    obj = {'x': torch.ones(3), 'y': torch.arange(4)}
    b = io.BytesIO(b'header' + torch_legacy(obj) + b'trailer')
    b.seek(6)
    same(Dl.load(b), obj)


class Unseekable(io.RawIOBase):
    def __init__(self, data):
        self.data, self.pos = data, 0

    def readable(self):
        return True

    def seekable(self):
        return False

    def readinto(self, b):
        n = min(len(b), len(self.data) - self.pos, 1000)  # short reads, as a pipe gives
        b[:n] = self.data[self.pos:self.pos + n]
        self.pos += n
        return n


@libdl_only
def test_unseekable_stream():
    # torch refuses unseekable streams; libdl reads the legacy format as it comes
    obj = {'x': torch.arange(5000.), 'n': nested(np.random.default_rng(8))}
    same(Dl.load(Unseekable(torch_legacy(obj))), obj)
    plain = {'x': obj['x'], 'sd': small_cnn().state_dict()}
    same(Dl.load(Unseekable(torch_legacy(plain)), weights_only=True), plain)
    # a zip archive from such a stream is read into memory first
    b = io.BytesIO()
    torch.save(obj, b)
    same(Dl.load(Unseekable(b.getvalue())), obj)


# ---- weights_only ------------------------------------------------------------

def test_weights_only_refuses_os_system():
    data = legacy_stream(pickle.dumps(Evil(), protocol=2), [])
    with pytest.raises(pickle.UnpicklingError, match='Weights only load failed') as e:
        dl_load(data, weights_only=True)
    assert 'system' in str(e.value)


@libdl_only
def test_globals_in_the_small_pickles_are_refused():
    # the magic, version, sys_info and keys pickles never hold globals
    data = pickle.dumps(0x1950a86a20f9469cfc6c, protocol=2) + pickle.dumps(Evil(), protocol=2)
    with pytest.raises(pickle.UnpicklingError, match='system'):
        dl_load(data)


# ---- hostile streams -----------------------------------------------------------

def small_legacy():
    base = torch.arange(6, dtype=torch.float32)
    return torch_legacy({'a': base[1:4], 'b': base, 'c': torch.ones(2, dtype=torch.int64)})


def test_truncated_at_every_byte():
    data = small_legacy()
    for cut in range(len(data)):
        with pytest.raises(LEGACY_ERRORS):
            dl_load(data[:cut])


def test_wrong_storage_size():
    # the element count before a storage's bytes must be the pickle's
    raw = np.arange(4, dtype=np.float32).tobytes()
    good = torch_legacy({'w': torch.arange(4.)})
    assert good.endswith(storage_record(4, raw))
    with pytest.raises(RuntimeError, match='wrong (byte )?size'):
        dl_load(good[:-len(raw) - 8] + storage_record(5, raw + raw[:4]))


@libdl_only
def test_counts_past_the_end():
    raw = np.arange(4, dtype=np.float32).tobytes()
    good = torch_legacy({'w': torch.arange(4.)})
    with pytest.raises(RuntimeError, match='truncated'):
        dl_load(good[:-2])
    with pytest.raises(RuntimeError, match='wrong size'):
        dl_load(good[:-len(raw) - 8] + storage_record(2 ** 62, raw))


@libdl_only
def test_huge_storage_is_refused_before_allocation():
    out = io.BytesIO()
    pickler = LegacyPickler(out, protocol=2)
    pickler.dump({'w': TensorRef(StorageRef(torch.FloatStorage, 2 ** 50), 0, (4,), (1,))})
    data = legacy_stream(out.getvalue(), ['0'], storage_record(2 ** 50, b'\0' * 16))
    with pytest.raises(RuntimeError, match='truncated'):
        dl_load(data)


@libdl_only
def test_key_lists_that_do_not_match():
    good = torch_legacy({'w': torch.arange(4.), 'v': torch.ones(4)})
    got = dl_load(good)
    keys_pickle_end = len(good) - 2 * (8 + 16)
    # find the keys pickle: the last pickle before the data
    for start in range(keys_pickle_end - 1, 0, -1):
        if good[start:start + 2] == b'\x80\x02':
            try:
                keys = pickle.loads(good[start:keys_pickle_end])
            except Exception:
                continue
            if isinstance(keys, list):
                break
    assert len(keys) == 2
    head, tail = good[:start], good[keys_pickle_end:]
    for bad in ([keys[0]], keys + ['99'], [keys[0], keys[0]], 'x', [1, 2], keys + keys):
        with pytest.raises(RuntimeError, match='storage keys'):
            dl_load(head + pickle.dumps(bad, protocol=2) + tail)
    same(got, dl_load(head + pickle.dumps(list(reversed(keys)), protocol=2)
                      + tail[24:] + tail[:24]))


class LegacyPickler(pickle.Pickler):
    """Names a StorageRef as the legacy format does (key '0', view)."""

    view = None

    def persistent_id(self, obj):
        if isinstance(obj, StorageRef):
            return ('storage', obj.storage_type, '0', 'cpu', obj.numel, self.view)
        return None


def legacy_tensor_stream(numel, offset, size, stride, view=None):
    out = io.BytesIO()
    pickler = LegacyPickler(out, protocol=2)
    pickler.view = view
    pickler.dump({'w': TensorRef(StorageRef(torch.FloatStorage, numel), offset, size, stride)})
    return legacy_stream(out.getvalue(), ['0'],
                         storage_record(numel, np.arange(numel, dtype=np.float32).tobytes()))


def test_saved_from_a_gpu_loads_on_the_cpu():
    # a storage whose location is 'cuda:0', of the old torch.cuda.FloatStorage type
    class GpuPickler(LegacyPickler):
        def persistent_id(self, obj):
            pid = super().persistent_id(obj)
            return pid and pid[:3] + ('cuda:0',) + pid[4:]

    out = io.BytesIO()
    GpuPickler(out, protocol=2).dump({'w': TensorRef(StorageRef(torch.FloatStorage, 4), 0, (4,),
                                                     (1,))})
    pkl = out.getvalue().replace(b'ctorch\nFloatStorage', b'ctorch.cuda\nFloatStorage')
    assert b'torch.cuda' in pkl
    data = legacy_stream(pkl, ['0'], storage_record(4, np.arange(4, dtype=np.float32).tobytes()))
    for loc in ('cpu', {'cuda:0': 'cpu'}, lambda storage, location: storage):
        np.testing.assert_array_equal(np_of(dl_load(data, map_location=loc)['w']), [0, 1, 2, 3])


def test_hand_made_legacy_stream_is_valid():
    got = dl_load(legacy_tensor_stream(4, 1, (3,), (1,)), weights_only=True)
    np.testing.assert_array_equal(np_of(got['w']), [1, 2, 3])


def test_storage_views_of_old_files():
    # torch < 1.0 wrote storage views: ('storage', ..., (view_key, offset, numel))
    got = dl_load(legacy_tensor_stream(6, 1, (2,), (1,), view=('v', 2, 3)))
    np.testing.assert_array_equal(np_of(got['w']), [3, 4])


@pytest.mark.parametrize('numel,offset,size,stride,view', [
    (4, 0, (5,), (1,), None),        # view past the storage
    (4, 3, (2,), (1,), None),        # offset + size past the storage
    (4, 0, (2, 2), (1, 3), None),    # strides reaching past
    (4, 0, (-1,), (1,), None),       # negative size
    pytest.param(6, 0, (3,), (1,), ('v', 4, 3), marks=libdl_only),  # storage view past the end
    pytest.param(6, 0, (3,), (1,), ('v', 4, 1), marks=libdl_only),  # tensor past its view
])
def test_hostile_views(numel, offset, size, stride, view):
    data = legacy_tensor_stream(numel, offset, size, stride, view)
    with pytest.raises(LEGACY_ERRORS):
        dl_load(data)
    with pytest.raises(pickle.UnpicklingError):
        dl_load(data, weights_only=True)


@libdl_only
def test_big_endian_refused():
    data = legacy_stream(pickle.dumps({}, protocol=2), [], little_endian=False)
    with pytest.raises(RuntimeError, match='big-endian'):
        dl_load(data)


@libdl_only  # torch's errors for these are whatever its unpickler meets (IndexError, ...)
def test_seeded_mutations():
    data = small_legacy()
    rng = np.random.default_rng(9)
    for _ in range(300):
        b = bytearray(data)
        for _ in range(rng.integers(1, 4)):
            b[rng.integers(len(b))] = rng.integers(256)
        try:
            got = dl_load(bytes(b), weights_only=True)
        except (RuntimeError, pickle.UnpicklingError, EOFError, ValueError, KeyError,
                AssertionError, TypeError, UnicodeDecodeError):
            continue
        if isinstance(got, dict):
            for v in got.values():
                if hasattr(v, 'shape'):
                    v.sum()


# ---- Dl.save(legacy) -> torch.load ---------------------------------------------

def test_dl_legacy_layout(tmp_path):
    # the stream torch writes: magic, version, sys_info, the object, the
    # sorted keys, (count, bytes) per storage; views of one tensor share one
    # storage
    base = Dl.arange(6.)
    obj = {'a': base[1:4], 'b': base, 'c': Dl.ones(2, dtype=Dl.int64), 'e': Dl.zeros(0, 2)}
    Dl.save(obj, tmp_path / 'l.pt', _use_new_zipfile_serialization=False)
    f = open(tmp_path / 'l.pt', 'rb')
    assert pickle.load(f) == 0x1950a86a20f9469cfc6c and pickle.load(f) == 1001
    assert pickle.load(f)['little_endian'] is True
    pids = []

    class Recorder(pickle.Unpickler):
        def persistent_load(self, pid):
            pids.append(pid)
            return pid[1](pid[4])  # an empty torch storage of the right type and size

    Recorder(f).load()
    keys = pickle.load(f)
    assert keys == sorted(set(p[2] for p in pids)) and len(keys) == 3
    assert all(len(p) == 6 and p[5] is None for p in pids)
    numels = {p[2]: p[4] for p in pids}
    for key in keys:
        n, = struct.unpack('<q', f.read(8))
        assert n == numels[key]
        f.read(n * (8 if n == 2 else 4))
    assert f.read() == b''
    f.close()
    got = torch.load(tmp_path / 'l.pt')
    same(obj, got)
    same(obj, torch.load(tmp_path / 'l.pt', weights_only=True))
    got['a'][0] = -1.0
    assert got['b'][1].item() == -1.0


@pytest.mark.parametrize('protocol', [2, 3, 4, 5])
def test_pickle_protocols(protocol):
    obj = {'w': torch.arange(6.).view(2, 3), 'n': [1, 'x']}
    b = io.BytesIO()
    torch.save(obj, b, pickle_protocol=protocol, _use_new_zipfile_serialization=False)
    same(dl_load(b.getvalue()), obj)
    b = io.BytesIO()
    Dl.save(to_dl(obj), b, pickle_protocol=protocol, _use_new_zipfile_serialization=False)
    same(torch.load(io.BytesIO(b.getvalue())), obj)
