"""unflatten against torch: values, views, -1 inference, errors."""
import numpy as np
import pytest
import torch

from gi.repository import Dl


@pytest.mark.parametrize("shape,dim,sizes", [
    ((6,), 0, (2, 3)), ((4, 6), 1, (3, -1)), ((4, 6), -1, (2, 3)), ((2, 12, 5), 1, (2, 2, 3)),
    ((0, 6), 1, (3, 2)), ((5,), 0, (5,)), ((3, 4), 0, (1, 3)),
])
def test_unflatten(shape, dim, sizes):
    a = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    x, t = Dl.from_numpy(a.copy()), torch.from_numpy(a.copy())
    got, want = x.unflatten(dim, sizes), t.unflatten(dim, sizes)
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    np.testing.assert_array_equal(Dl.unflatten(x, dim, sizes).numpy(), want.numpy())
    if got.numel():
        assert got.data_ptr() == x.data_ptr()  # a view of a contiguous tensor


def test_unflatten_grad():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = Dl.from_numpy(a.copy()).requires_grad_()
    t = torch.from_numpy(a.copy()).requires_grad_()
    (x.unflatten(1, (2, 2)) * Dl.arange(2.0).reshape(1, 2, 1)).sum().backward()
    (t.unflatten(1, (2, 2)) * torch.arange(2.0).reshape(1, 2, 1)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), t.grad.numpy())


@pytest.mark.parametrize("shape,dim,sizes,exc", [
    ((6,), 0, (4, 2), RuntimeError), ((6,), 2, (2, 3), IndexError), ((6,), 0, (-1, -1), RuntimeError),
    ((6,), 0, (4, -1), RuntimeError),
])
def test_unflatten_errors(shape, dim, sizes, exc):
    for mod in (Dl, torch):
        with pytest.raises(exc):
            mod.zeros(shape).unflatten(dim, sizes)


def test_sum_dtype_is_the_result_dtype():
    x, t = Dl.arange(6).reshape(2, 3), torch.arange(6).reshape(2, 3)
    for dt, tdt in ((Dl.int32, torch.int32), (Dl.float64, torch.float64), (Dl.uint8, torch.uint8)):
        assert repr(x.sum(dtype=dt)) == repr(t.sum(dtype=tdt))
        assert repr(x.sum(1, dtype=dt)) == repr(t.sum(1, dtype=tdt))


def test_relu_inplace():
    a = np.array([-1.0, 2.0, -3.0], np.float32)
    for mod, f in ((Dl, Dl.from_numpy), (torch, torch.from_numpy)):
        y = f(a.copy())
        assert mod.nn.ReLU(inplace=True)(y) is y
        np.testing.assert_array_equal(y.numpy(), [0, 2, 0])
        z = f(a.copy())
        mod.nn.functional.relu(z, inplace=True)
        np.testing.assert_array_equal(z.numpy(), [0, 2, 0])
