# test_numpy_interop.py: from_numpy() and numpy() share memory (zero-copy)
# as in PyTorch; dtypes, strides and lifetimes.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import gc

import numpy as np
import pytest
import torch

from conftest import Dl, assert_same, dtype_name

NP_TYPES = [np.float32, np.float64, np.float16, np.int32, np.int64, np.uint8, np.bool_]


def sample(rng, dt, shape=(3, 4)):
    if dt is np.bool_:
        return rng.random(shape) < 0.5
    if np.issubdtype(dt, np.integer):
        return rng.integers(0, 100, size=shape).astype(dt)
    return rng.standard_normal(shape).astype(dt)


@pytest.mark.parametrize("dt", NP_TYPES, ids=lambda d: np.dtype(d).name)
def test_from_numpy_zero_copy(rng, dt):
    a = sample(rng, dt)
    x, t = Dl.from_numpy(a), torch.from_numpy(a.copy())
    assert_same(x, t)
    assert dtype_name(x.dtype) == dtype_name(t.dtype)
    assert x.data_ptr() == a.ctypes.data
    assert x.stride() == t.stride()
    # numpy -> tensor
    a[1, 2] = a[0, 0] if dt is not np.bool_ else not a[1, 2]
    assert x.tolist() == a.tolist()
    # tensor -> numpy
    x.zero_()
    assert not a.any()
    if dt is not np.bool_:
        x.add_(Dl.ones(4, dtype=x.dtype))
        assert (a == 1).all()


@pytest.mark.parametrize("shape", [(), (0,), (1,), (2, 0, 3), (5, 1)], ids=str)
def test_from_numpy_shapes(rng, shape):
    a = rng.standard_normal(shape).astype(np.float32) if shape else np.array(1.5, np.float32)
    x, t = Dl.from_numpy(a), torch.from_numpy(a)
    assert_same(x, t)
    assert x.stride() == t.stride()


@pytest.mark.parametrize("view", ["T", "step", "col", "3d"])
def test_from_numpy_strided(rng, view):
    base = rng.standard_normal((6, 8)).astype(np.float32)
    a = {"T": base.T, "step": base[:, ::2], "col": base[:, 3],
         "3d": base.reshape(2, 3, 8).transpose(2, 0, 1)}[view]
    x, t = Dl.from_numpy(a), torch.from_numpy(a)
    assert_same(x, t)
    assert x.stride() == t.stride()
    assert x.is_contiguous() == t.is_contiguous()
    base *= 2
    assert_same(x, torch.from_numpy(a))
    assert_same(x.contiguous() * 1, t.contiguous() * 1)


def test_from_numpy_keeps_array_alive():
    a = np.arange(1000, dtype=np.float64)
    x = Dl.from_numpy(a)
    del a
    gc.collect()
    junk = [np.full(1000, 7.0) for _ in range(50)]
    assert x.sum().item() == sum(range(1000))
    del junk


def test_numpy_keeps_tensor_alive():
    x = Dl.arange(1000.0)
    a = x.numpy()
    del x
    gc.collect()
    junk = [Dl.full((1000,), 7.0) for _ in range(50)]
    assert a.sum() == sum(range(1000))
    del junk


@pytest.mark.parametrize("name", ["float32", "float64", "float16", "int32", "int64", "uint8", "bool"])
def test_numpy_zero_copy(name):
    x = Dl.zeros(2, 3, dtype=getattr(Dl, name))
    t = torch.zeros(2, 3, dtype=getattr(torch, name))
    a = x.numpy()
    assert a.dtype == t.numpy().dtype
    assert a.shape == (2, 3)
    assert a.ctypes.data == x.data_ptr()
    a[0, 1] = 1
    assert x.tolist()[0][1] == 1
    x.fill_(1)
    assert a.all()


@pytest.mark.parametrize("shape", [(), (0,), (1,), (3, 0), (2, 3, 4)], ids=str)
def test_numpy_shapes(rng, shape):
    a = rng.standard_normal(shape).astype(np.float32)
    x = Dl.from_numpy(np.array(a, copy=True))
    b = x.numpy()
    assert b.shape == a.shape and b.dtype == np.float32
    np.testing.assert_array_equal(b, a)


@pytest.mark.parametrize("view", ["t", "expand", "permute"])
def test_numpy_of_noncontiguous(view):
    fns = {"t": lambda v: v.t(), "expand": lambda v: v.unsqueeze(0).expand(3, 2, 4),
           "permute": lambda v: v.view(2, 2, 2).permute(2, 0, 1)}
    x, t = Dl.arange(8.0).view(2, 4), torch.arange(8.0).view(2, 4)
    xv, tv = fns[view](x), fns[view](t)
    a, b = xv.numpy(), tv.numpy()
    np.testing.assert_array_equal(a, b)
    assert a.strides == b.strides
    x.add_(1)
    np.testing.assert_array_equal(a, b + 1)


def test_numpy_of_detached_grad_tensor():
    x = Dl.tensor([1.0, 2.0], requires_grad=True)
    a = x.detach().numpy()
    assert a.tolist() == [1.0, 2.0]
    with pytest.raises(RuntimeError):
        x.numpy()


@pytest.mark.parametrize("dt", NP_TYPES, ids=lambda d: np.dtype(d).name)
def test_tensor_from_numpy_copies(rng, dt):
    a = sample(rng, dt)
    x, t = Dl.tensor(a), torch.tensor(a)
    assert_same(x, t)
    assert x.data_ptr() != a.ctypes.data
    a[...] = 0
    assert_same(x, t)


def test_tensor_from_numpy_scalars_and_dtype():
    assert_same(Dl.tensor(np.float64(2.5)), torch.tensor(np.float64(2.5)))
    assert_same(Dl.tensor(np.arange(3), dtype=Dl.float32), torch.tensor(np.arange(3), dtype=torch.float32))
    assert_same(Dl.tensor([np.float32(1.5), np.float32(2.0)]), torch.tensor([np.float32(1.5), np.float32(2.0)]))


def test_roundtrip_exact(rng):
    for dt in NP_TYPES:
        a = sample(rng, dt, (4, 5))
        np.testing.assert_array_equal(Dl.from_numpy(a).numpy(), a)
        np.testing.assert_array_equal(Dl.tensor(a).numpy(), a)
        np.testing.assert_array_equal(np.array(Dl.tensor(a.tolist(), dtype=Dl.from_numpy(a).dtype).tolist(), dtype=dt), a)


def test_ops_on_from_numpy_views(rng):
    a = rng.standard_normal((4, 6)).astype(np.float32)
    x, t = Dl.from_numpy(a[:, 1::2]), torch.from_numpy(a[:, 1::2])
    assert_same(x * 2 + x.exp(), t * 2 + t.exp())
    assert_same(x.sum(0), t.sum(0))
    assert_same(x @ x.t(), t @ t.t())
